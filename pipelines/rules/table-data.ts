import type { Analytics } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import type { WindowStore } from '../../infra/windows/types.js';
import { customTableName } from '../../domain/tenant-names.js';
import { columnsOf, createTableSql, rowForAnswer, rowForInsert, RowError, type TableDefinition } from '../../domain/rules/custom-table.js';
import type { Row } from '../../domain/rules/evaluate.js';
import { windowStateOf } from '../../domain/rules/schema.js';
import { quoteIdent } from '../../domain/rules/sql.js';
import { parseDateTime, toRuntime, type Value } from '../../domain/rules/values.js';
import { aggregateReads, rowUpdates, seriesName, windowMs } from '../../domain/rules/window-state.js';
import { LookupMirror, RowBudget } from './lookup-mirror.js';
import { keyedSerial } from '../../infra/keyed-serial.js';
import { versionSource } from './versions.js';

export interface BulkWarning {
  row_index: number;
  id_value: string;
  id_column: string;
  message: string;
}
export interface BulkResult {
  inserted_count: number;
  skipped_count: number;
  total_count: number;
  warnings: BulkWarning[];
}
export interface Page {
  rows: Record<string, Value>[];
  total: number;
  limit: number;
  offset: number;
}

export interface TableData {
  create(orgId: string, def: TableDefinition): Promise<void>;
  drop(orgId: string, def: TableDefinition): Promise<void>;
  page(orgId: string, def: TableDefinition, limit: number, offset: number): Promise<Page>;
  /** Throws RowError (naming the row) when a row does not fit: then nothing is written. */
  insert(orgId: string, def: TableDefinition, rows: Record<string, unknown>[]): Promise<BulkResult>;
  /** The changed row, or null when no row has this id. Throws RowError for bad changes. */
  patch(orgId: string, def: TableDefinition, id: string, changes: Record<string, unknown>): Promise<Record<string, Value> | null>;
  /** The row whose id column equals `id`, in runtime form, for evaluation. */
  lookup(orgId: string, def: TableDefinition, id: string): Promise<Row | undefined>;
  /** windowState aggregates of one entity, from the window store (no scan). */
  aggregates(orgId: string, def: TableDefinition, entityId: string): Promise<Row>;
}

export interface TableDataOptions {
  analytics: Analytics;
  windows: WindowStore;
  clock: Clock;
  mirrorRefreshMs: number;
  mirrorMaxRows: number;
  /** Lookup rows one organization's mirrors may hold together (QUOTA_LOOKUP_ROWS_PER_ORG). */
  mirrorRowsPerOrg: number;
}

const DAY = 86_400_000;

/**
 * Custom table rows in ClickHouse, one physical table per organization table (custom-table.ts).
 * Rows appended to an event_stream table with windowState also update its aggregates in the
 * window store, once per row id, before the row is written: a retried request whose rows were
 * partly applied neither double-counts nor loses them.
 */
export function createTableData(o: TableDataOptions): TableData {
  const { analytics, windows, clock } = o;
  const serial = keyedSerial();
  const nextVersion = versionSource(() => clock.now());
  const mirrors = new Map<string, LookupMirror>();
  const budgets = new Map<string, RowBudget>();
  const name = (orgId: string, def: TableDefinition) => quoteIdent(customTableName(orgId, def.tableName));
  const final = (def: TableDefinition) => (def.tableType === 'lookup' ? ' FINAL' : '');
  const idCol = (def: TableDefinition) => quoteIdent(def.idColumn);
  const mirrorKey = (orgId: string, def: TableDefinition) => `${orgId}\u0000${def.tableName}\u0000${def.generation}`;
  const series = (def: TableDefinition) => (agg: string) => seriesName(def.tableName, def.generation, agg);

  const toRow = (def: TableDefinition) => {
    const cols = columnsOf(def);
    return (raw: Record<string, unknown>): Row => Object.fromEntries(cols.map((c) => [c.name, toRuntime(c.type, raw[c.name])]));
  };

  function forget(key: string, m: LookupMirror): void {
    mirrors.delete(key);
    m.release();
  }

  function mirror(orgId: string, def: TableDefinition): LookupMirror {
    const key = mirrorKey(orgId, def);
    let m = mirrors.get(key);
    if (!m) {
      // A table of this name from an earlier generation (dropped by another process) holds rows no read will ask for.
      const table = `${orgId}\u0000${def.tableName}\u0000`;
      for (const [k, old] of mirrors) if (k.startsWith(table)) forget(k, old);
      let budget = budgets.get(orgId);
      if (!budget) budgets.set(orgId, (budget = new RowBudget(o.mirrorRowsPerOrg)));
      m = new LookupMirror({ analytics, physical: customTableName(orgId, def.tableName), idColumn: def.idColumn, toRow: toRow(def), refreshMs: o.mirrorRefreshMs, maxRows: o.mirrorMaxRows, budget, now: () => clock.now() });
      mirrors.set(key, m);
    }
    return m;
  }

  async function query<T>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
    const rs = await analytics.query({ query: sql, query_params: params, format: 'JSONEachRow' });
    return rs.json<T>();
  }

  async function applyWindows(orgId: string, def: TableDefinition, rows: { id: string; row: Record<string, Value>; raw: Record<string, unknown> }[]) {
    const ws = windowStateOf(def);
    if (!ws || rows.length === 0) return;
    const now = clock.now();
    const ttlMs = Math.max(...ws.aggregates.map((a) => windowMs(a.window))) + DAY;
    await windows.apply(
      rows.map(({ id, row, raw }) => ({
        entity: { scope: orgId, id: String(row[ws.entityColumn]) },
        updates: rowUpdates(ws.aggregates, series(def), parseDateTime(String(raw[ws.timestampColumn]))!, row, now),
        once: { id: `ct:${def.tableName}:${def.generation}:${id}`, ttlMs },
      })),
    );
  }

  return {
    async create(orgId, def) {
      await analytics.command({ query: createTableSql(orgId, def) });
    },

    async drop(orgId, def) {
      const key = mirrorKey(orgId, def);
      const m = mirrors.get(key);
      if (m) forget(key, m);
      await analytics.command({ query: `DROP TABLE IF EXISTS ${name(orgId, def)}` });
    },

    async page(orgId, def, limit, offset) {
      const [rows, [count]] = await Promise.all([
        query<Record<string, unknown>>(`SELECT * FROM ${name(orgId, def)}${final(def)} ORDER BY ${idCol(def)} LIMIT {limit:UInt32} OFFSET {offset:UInt64}`, { limit, offset }),
        query<{ n: string }>(`SELECT count() AS n FROM ${name(orgId, def)}${final(def)}`),
      ]);
      return { rows: rows.map((r) => rowForAnswer(def, r)), total: Number(count!.n), limit, offset };
    },

    async insert(orgId, def, input) {
      const checked = input.map((raw, i) => {
        try {
          return { raw, row: rowForInsert(def, raw) };
        } catch (err) {
          if (err instanceof RowError) throw new RowError(`row ${i}: ${err.message}`);
          throw err;
        }
      });
      return serial(mirrorKey(orgId, def), async () => {
        const ids = checked.map((c) => String(c.row[def.idColumn]));
        const existing = new Set(
          ids.length === 0 ? [] : (await query<{ id: string }>(`SELECT ${idCol(def)} AS id FROM ${name(orgId, def)}${final(def)} WHERE ${idCol(def)} IN {ids:Array(String)}`, { ids })).map((r) => r.id),
        );
        const firstIndex = new Map<string, number>();
        const warnings: BulkWarning[] = [];
        const accepted: { id: string; row: Record<string, Value>; raw: Record<string, unknown> }[] = [];
        checked.forEach((c, i) => {
          const id = ids[i]!;
          const earlier = firstIndex.get(id);
          if (existing.has(id) || earlier !== undefined) {
            const message = earlier !== undefined ? `id repeats row ${earlier} of this request; row skipped` : `a row with ${def.idColumn} '${id}' already exists; row skipped`;
            warnings.push({ row_index: i, id_value: id, id_column: def.idColumn, message });
            return;
          }
          firstIndex.set(id, i);
          accepted.push({ id, ...c });
        });
        await applyWindows(orgId, def, accepted);
        if (accepted.length > 0) {
          const version = def.tableType === 'lookup' ? { _version: nextVersion() } : {};
          await analytics.insert({ table: customTableName(orgId, def.tableName), format: 'JSONEachRow', values: accepted.map((a) => ({ ...a.row, ...version })) });
          if (def.tableType === 'lookup') await mirror(orgId, def).refresh();
        }
        return { inserted_count: accepted.length, skipped_count: warnings.length, total_count: input.length, warnings };
      });
    },

    async patch(orgId, def, id, changes) {
      if (def.tableType !== 'lookup') throw new RowError('event_stream tables are append-only: their rows cannot be changed');
      if (def.idColumn in changes && changes[def.idColumn] !== id) throw new RowError(`the id column '${def.idColumn}' cannot be changed`);
      rowForInsert(def, changes, true);
      return serial(mirrorKey(orgId, def), async () => {
        const [current] = await query<Record<string, unknown>>(`SELECT * FROM ${name(orgId, def)} FINAL WHERE ${idCol(def)} = {id:String} LIMIT 1`, { id });
        if (!current) return null;
        const merged = { ...rowForAnswer(def, current), ...changes };
        await analytics.insert({ table: customTableName(orgId, def.tableName), format: 'JSONEachRow', values: [{ ...rowForInsert(def, merged), _version: nextVersion() }] });
        await mirror(orgId, def).refresh();
        return rowForAnswer(def, rowForInsert(def, merged));
      });
    },

    async lookup(orgId, def, id) {
      if (def.tableType === 'lookup') return mirror(orgId, def).get(id);
      const [raw] = await query<Record<string, unknown>>(`SELECT * FROM ${name(orgId, def)} WHERE ${idCol(def)} = {id:String} LIMIT 1`, { id });
      return raw ? toRow(def)(raw) : undefined;
    },

    async aggregates(orgId, def, entityId) {
      const ws = windowStateOf(def);
      if (!ws) return {};
      const values = await windows.read({ scope: orgId, id: entityId }, aggregateReads(ws.aggregates, series(def), clock.now()));
      return Object.fromEntries(ws.aggregates.map((a, i) => [a.name, values[i] ?? 0]));
    },
  };
}
