import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import { startStage } from '../stage.js';
import { RISK_CHECKS_TOPIC, riskRecord, type RiskRecord } from './record.js';
import { TOMBSTONE_SERIES, tombstoneEntity } from './entity-data.js';

/**
 * Records reach ClickHouse up to this much after they are durable in the log: a few inserts a
 * second, not one per check (each insert is a part chDB parses and later merges, 2 ms of CPU per
 * check at 200 checks/s when every check was its own batch).
 */
export const RISK_RECORDS_LINGER_MS = 500;

type Of<K extends RiskRecord['kind']> = Extract<RiskRecord, { kind: K }>;

/**
 * Writes the `risk.checks` topic to ClickHouse: checks, feedback and challenge overrides, each to
 * its table. Every table is a ReplacingMergeTree keyed by the record's id, so a batch delivered
 * again after a crash leaves one row per record. Records of a user deleted (GDPR) after they were
 * made are dropped: the deletion leaves a tombstone in the window store.
 */
export function startRiskRecordsStage(platform: Platform): Promise<Stoppable> {
  return startStage({
    platform,
    name: 'risk-records',
    topic: RISK_CHECKS_TOPIC,
    schema: riskRecord,
    lingerMs: RISK_RECORDS_LINGER_MS,
    handle: async (records) => {
      const values = await withoutDeleted(platform, records.map((r) => r.value));
      const of = <K extends RiskRecord['kind']>(kind: K) => values.filter((v): v is Of<K> => v.kind === kind);
      const inserts: Promise<unknown>[] = [];
      const insert = (table: string, rows: Record<string, unknown>[]) => {
        if (rows.length > 0) inserts.push(platform.analytics.insert({ table, format: 'JSONEachRow', values: rows }));
      };
      insert(
        'risk_checks',
        of('check').map(({ kind: _k, payload, ...r }) => ({ ...r, payload: JSON.stringify(payload ?? null) })),
      );
      insert('risk_feedback', of('feedback').map(({ kind: _k, ...r }) => r));
      insert('risk_overrides', of('override').map(({ kind: _k, ...r }) => r));
      await Promise.all(inserts);
    },
  });
}

const madeAt = (r: RiskRecord): number => Date.parse(r.kind === 'check' ? r.created_at : r.kind === 'feedback' ? r.received_at : r.at);

async function withoutDeleted(platform: Platform, values: RiskRecord[]): Promise<RiskRecord[]> {
  const keyOf = (v: RiskRecord) => `${v.org_id}\u0000${v.user_id}`;
  const users = new Map(values.flatMap((v) => (v.user_id ? [[keyOf(v), { org: v.org_id, user: v.user_id }] as const] : [])));
  const deletedAt = new Map<string, number>();
  const entries = [...users];
  // One window-store call for the batch's users (one script on Redis), not one per user.
  const found = await platform.windows.readMany(entries.map(([, { org, user }]) => ({ entity: tombstoneEntity(org, user), reads: [{ kind: 'max' as const, series: TOMBSTONE_SERIES }] })));
  entries.forEach(([key], i) => {
    const at = found[i]![0];
    if (at != null) deletedAt.set(key, at);
  });
  if (deletedAt.size === 0) return values;
  return values.filter((v) => !v.user_id || !deletedAt.has(keyOf(v)) || madeAt(v) > deletedAt.get(keyOf(v))!);
}
