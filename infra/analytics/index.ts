import { mkdir } from 'node:fs/promises';
import { createClient } from '@clickhouse/client';
import { createChdbAnalytics } from './chdb.js';
import type { Analytics, Migration } from './types.js';
import { makeConfigurationDurable } from './durable-tables.js';

export interface AnalyticsOptions {
  /** HTTP address of a ClickHouse server; unset selects chDB in process. */
  url?: string;
  username: string;
  password: string;
  database: string;
  /** chDB data directory (one per process; see shared NOTES). */
  chdbPath: string;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * One @clickhouse/client code path for both back ends; only the connection differs.
 * The database is created first so every later query can name it.
 */
export async function createAnalytics(opts: AnalyticsOptions): Promise<Analytics> {
  if (!IDENT.test(opts.database)) throw new Error(`CLICKHOUSE_DATABASE must be a plain identifier`);
  if (opts.url) {
    const bootstrap = createClient({ url: opts.url, username: opts.username, password: opts.password });
    await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${opts.database}` });
    await bootstrap.close();
    return createClient({
      url: opts.url,
      username: opts.username,
      password: opts.password,
      database: opts.database,
      clickhouse_settings: { date_time_input_format: 'best_effort' },
    });
  }
  await mkdir(opts.chdbPath, { recursive: true });
  return createChdbAnalytics(opts.chdbPath, opts.database);
}

/**
 * Applies migrations in order at every start-up, then makes the configuration tables durable.
 * Statements are idempotent by contract, so no ledger is needed and a run cut short is completed by the next one.
 */
export async function runMigrations(client: Analytics, database: string, migrations: Migration[]): Promise<void> {
  for (const m of migrations) {
    for (const statement of m.statements) {
      await client.command({ query: statement.replaceAll('{db}', database) });
    }
  }
  await makeConfigurationDurable(client, database);
}
