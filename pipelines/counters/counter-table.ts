import type { Analytics } from '../../infra/analytics/types.js';
import type { CounterColumn } from '../../domain/counters/compile.js';
import type { CounterValue } from '../../domain/counters/live-values.js';
import { counterTableName } from '../../domain/tenant-names.js';

/**
 * The counter table in ClickHouse: one row per (org_id, entity_id), one Nullable column per counter,
 * ReplacingMergeTree on updated_at so the newest flush of an entity wins. Each organization's
 * `table_name` is its own physical table (domain/tenant-names.ts), so no organization creates,
 * alters or learns of another's columns. Every flushed row carries all of the organization's
 * columns, retired ones with their last value, because a row replaces the previous one whole.
 */

const SQL_TYPE: Record<CounterColumn['type'], string> = {
  number: 'Nullable(Float64)',
  datetime: "Nullable(DateTime64(3, 'UTC'))",
};
const normalizeType = (t: string) => t.replaceAll(' ', '');
const quote = (ident: string) => `\`${ident}\``;

export class ColumnConflictError extends Error {}

export type FlushRow = { entity_id: string; values: Record<string, CounterValue>; updatedAt: number };

/** ClickHouse renders DateTime64 as `YYYY-MM-DD hh:mm:ss.sss` (UTC here); answers RFC 3339. */
export const rfc3339 = (chTime: string): string => `${chTime.replace(' ', 'T')}Z`;

export function createCounterTable(analytics: Analytics) {
  async function columnsOf(table: string): Promise<Map<string, string> | null> {
    const rs = await analytics.query({
      query: 'SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {t:String}',
      query_params: { t: table },
      format: 'JSONEachRow',
    });
    const rows = await rs.json<{ name: string; type: string }>();
    return rows.length === 0 ? null : new Map(rows.map((r) => [r.name, normalizeType(r.type)]));
  }

  return {
    /**
     * Creates the table if needed and adds a column per counter (ALTER ... ADD COLUMN IF NOT EXISTS:
     * existing data stays). Throws ColumnConflictError when the table is not a counter table or a
     * column of that name already holds another type.
     */
    async ensure(orgId: string, table: string, columns: CounterColumn[]): Promise<void> {
      const physical = counterTableName(orgId, table);
      let existing = await columnsOf(physical);
      if (!existing) {
        await analytics.command({
          query: `CREATE TABLE IF NOT EXISTS ${quote(physical)} (org_id String, entity_id String, updated_at DateTime64(3, 'UTC')) ENGINE = ReplacingMergeTree(updated_at) ORDER BY (org_id, entity_id)`,
        });
        existing = (await columnsOf(physical))!;
      }
      if (existing.get('org_id') !== 'String' || existing.get('entity_id') !== 'String' || !existing.get('updated_at')?.startsWith('DateTime64')) {
        throw new ColumnConflictError(`table ${table} exists and is not a counter table; choose another table_name`);
      }
      for (const col of columns) {
        const have = existing.get(col.name);
        if (have === undefined) {
          await analytics.command({ query: `ALTER TABLE ${quote(physical)} ADD COLUMN IF NOT EXISTS ${quote(col.name)} ${SQL_TYPE[col.type]}` });
        } else if (have !== normalizeType(SQL_TYPE[col.type])) {
          throw new ColumnConflictError(
            `column ${col.name} of table ${table} holds ${have} values; a ${col.type === 'number' ? 'count or sum' : 'last_seen'} counter needs another name`,
          );
        }
      }
    },

    /** Inserts one row per entity; updated_at is the instant the values were read at. */
    async write(table: string, orgId: string, rows: FlushRow[]): Promise<void> {
      if (rows.length === 0) return;
      await analytics.insert({
        table: counterTableName(orgId, table),
        format: 'JSONEachRow',
        values: rows.map((r) => ({ org_id: orgId, entity_id: r.entity_id, ...r.values, updated_at: new Date(r.updatedAt).toISOString() })),
      });
    },

    /** Last flushed values of `columns` for the given entities (entities without a row are absent). */
    async read(table: string, orgId: string, entityIds: string[], columns: CounterColumn[]): Promise<Map<string, Record<string, CounterValue>>> {
      const out = new Map<string, Record<string, CounterValue>>();
      if (entityIds.length === 0 || columns.length === 0) return out;
      const rs = await analytics.query({
        query: `SELECT entity_id, ${columns.map((c) => quote(c.name)).join(', ')} FROM ${quote(counterTableName(orgId, table))} FINAL WHERE org_id = {org:String} AND entity_id IN {ids:Array(String)}`,
        query_params: { org: orgId, ids: entityIds },
        format: 'JSONEachRow',
      });
      for (const row of await rs.json<Record<string, CounterValue>>()) {
        const values: Record<string, CounterValue> = {};
        for (const c of columns) {
          const v = row[c.name] ?? null;
          values[c.name] = c.type === 'datetime' && typeof v === 'string' ? rfc3339(v) : v;
        }
        out.set(String(row.entity_id), values);
      }
      return out;
    },
  };
}

export type CounterTable = ReturnType<typeof createCounterTable>;
