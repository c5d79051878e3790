import type { Analytics } from './types.js';

/**
 * The tables whose rows are configuration or its audit: an answer that acknowledges one of their
 * writes promises it survives a power loss, so ClickHouse must fsync each inserted part and its
 * directory before the insert returns (by default it leaves both to the OS page cache). Event
 * and result tables (checks, decisions, deliveries, screenings) keep the default: they are
 * rebuilt from the log, and an fsync per insert would cost their write rate.
 */
export const DURABLE_TABLES = [
  'rule_fields', 'rule_rules', 'rule_tables', 'rule_history',
  'counter_configs',
  'webhook_registrations', 'webhook_org_config', 'webhook_sdk_users', 'webhook_approvals',
  'video_principals', 'video_principal_audit', 'video_templates',
  'risk_weights', 'risk_whitelist', 'risk_webhooks',
  'aml_config',
] as const;

export const DURABLE_SETTINGS = 'fsync_after_insert = 1, fsync_part_directory = 1';

/**
 * Gives every durable table of the database that exists (each service creates its own) the
 * settings above; ALTER ... MODIFY SETTING is idempotent, so tables created before this existed are
 * migrated by the next start-up.
 */
export async function makeConfigurationDurable(client: Analytics, database: string): Promise<void> {
  const rs = await client.query({
    query: 'SELECT name FROM system.tables WHERE database = {db:String} AND has({names:Array(String)}, name)',
    query_params: { db: database, names: [...DURABLE_TABLES] },
    format: 'JSONEachRow',
  });
  for (const { name } of await rs.json<{ name: string }>()) {
    await client.command({ query: `ALTER TABLE \`${database}\`.\`${name}\` MODIFY SETTING ${DURABLE_SETTINGS}` });
  }
}
