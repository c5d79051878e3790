import type { Analytics } from '../../infra/analytics/types.js';
import { orgEntityCountersSql, QUERIES, type QueryName } from '../../domain/analytics/queries.js';
import type { CounterColumn } from '../../domain/counters/compile.js';

/** An organization's counter table and the columns it writes there; null before its first configuration. */
export type CounterColumns = (orgId: string) => Promise<{ table: string; columns: CounterColumn[] } | null>;

type Row = Record<string, unknown>;

/** Columns answered as ClickHouse DateTime text, turned into RFC 3339. */
const TIME_COLUMNS = new Set(['hour', 'minute', 'decided_at', 'created_at']);
const rfc3339 = (v: unknown) => (typeof v === 'string' ? `${v.replace(' ', 'T')}Z` : v);

/**
 * The documented analytics questions, asked of ClickHouse for one organization at a time: the
 * caller chooses the question and its range, never the SQL or the organization.
 */
export function createAnalyticsReader(deps: { analytics: Analytics; counterColumns: CounterColumns }) {
  /** A documented query with its parameters; 64-bit integers come as JSON numbers on both back ends (a ClickHouse server quotes them by default). */
  async function run(name: QueryName, params: Row): Promise<Row[]> {
    const rs = await deps.analytics.query({
      query: QUERIES[name].sql,
      query_params: params,
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    });
    const rows = await rs.json<Row>();
    return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, TIME_COLUMNS.has(k) ? rfc3339(v) : v])));
  }

  return {
    run,

    /** One page: a row more than the page is read to know whether another page follows. */
    async page(name: QueryName, params: Row, limit: number, offset: number) {
      const rows = await run(name, { ...params, limit: limit + 1, offset });
      return { rows: rows.slice(0, limit), limit, offset, next_offset: rows.length > limit ? offset + limit : null };
    },

    /** An entity's counters as last flushed, only the organization's own columns; null when none. */
    async entityCounters(orgId: string, entityId: string) {
      const own = await deps.counterColumns(orgId);
      if (!own) return null;
      const rs = await deps.analytics.query({
        query: orgEntityCountersSql(own.table, own.columns.map((c) => c.name)),
        query_params: { org_id: orgId, entity_id: entityId },
        format: 'JSONEachRow',
      });
      const [row] = await rs.json<Row>();
      if (!row) return null;
      const counters = Object.fromEntries(own.columns.map((c) => [c.name, c.type === 'datetime' ? (rfc3339(row[c.name]) ?? null) : (row[c.name] ?? null)]));
      return { entity_id: entityId, counters, updated_at: rfc3339(row.updated_at) };
    },
  };
}

export type AnalyticsReader = ReturnType<typeof createAnalyticsReader>;
