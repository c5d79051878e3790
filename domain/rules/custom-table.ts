import { MAX_AMOUNT, sci } from '../bounds.js';
import type { TableBody } from '../../schemas/http/rules.js';
import { customTableName } from '../tenant-names.js';
import { CLICKHOUSE_TYPE, quoteIdent } from './sql.js';
import { clickhouseDateTime, isoDateTime, parseDateTime, type Value, type ValueType } from './values.js';

/** A custom table as stored: the create body with defaults applied, the id column always present. */
export type TableDefinition = TableBody & { generation: string };
export type Column = TableBody['columns'][number];

/**
 * The id column is a non-null string whether or not the body listed it. With windowState, the
 * entity and timestamp columns are non-null too: the entity is in the sorting key (which ClickHouse
 * refuses nullable) and a row without either cannot be placed in a window.
 */
export function columnsOf(def: Pick<TableBody, 'columns' | 'idColumn' | 'optimization'>): Column[] {
  const ws = def.optimization.status === 'enabled' ? def.optimization.windowState : null;
  const keys = new Set(ws ? [ws.entityColumn, ws.timestampColumn] : []);
  const rest = def.columns.filter((c) => c.name !== def.idColumn).map((c) => (keys.has(c.name) ? { ...c, nullable: false } : c));
  return [{ name: def.idColumn, type: 'string', nullable: false }, ...rest];
}

/** lookup: ReplacingMergeTree by id (a PATCH writes a newer version); event_stream: append-only MergeTree. */
export function createTableSql(orgId: string, def: TableBody): string {
  const cols = columnsOf(def).map((c) => {
    const t = CLICKHOUSE_TYPE[c.type];
    return `${quoteIdent(c.name)} ${c.nullable ? `Nullable(${t})` : t}`;
  });
  const name = quoteIdent(customTableName(orgId, def.tableName));
  if (def.tableType === 'lookup') {
    return `CREATE TABLE IF NOT EXISTS ${name} (${[...cols, '`_version` UInt64'].join(', ')}) ENGINE = ReplacingMergeTree(_version) ORDER BY ${quoteIdent(def.idColumn)}`;
  }
  const ws = def.optimization.status === 'enabled' ? def.optimization.windowState : null;
  const order = ws ? `(${quoteIdent(ws.entityColumn)}, ${quoteIdent(def.idColumn)})` : quoteIdent(def.idColumn);
  return `CREATE TABLE IF NOT EXISTS ${name} (${cols.join(', ')}) ENGINE = MergeTree ORDER BY ${order}`;
}

export class RowError extends Error {}

/**
 * Checks one submitted row against the schema and converts it for a JSONEachRow insert.
 * Unknown columns, wrong types and missing non-null values are errors naming the column.
 */
export function rowForInsert(def: TableBody, row: Record<string, unknown>, partial = false): Record<string, Value> {
  const cols = columnsOf(def);
  const known = new Set(cols.map((c) => c.name));
  for (const k of Object.keys(row)) if (!known.has(k)) throw new RowError(`unknown column '${k}'`);
  const out: Record<string, Value> = {};
  for (const c of cols) {
    if (partial && !(c.name in row)) continue;
    const v = row[c.name];
    if (v === undefined || v === null) {
      if (!c.nullable) throw new RowError(`column '${c.name}' is required`);
      out[c.name] = null;
      continue;
    }
    out[c.name] = columnValue(c, v);
  }
  if (!partial && out[def.idColumn] === '') throw new RowError(`id column '${def.idColumn}' must not be empty`);
  return out;
}

function columnValue(c: Column, v: unknown): Value {
  switch (c.type) {
    case 'string':
      if (typeof v === 'string') return v;
      break;
    case 'number':
      if (typeof v === 'number' && Number.isFinite(v)) {
        if (Math.abs(v) > MAX_AMOUNT) throw new RowError(`column '${c.name}' must be at most ${sci(MAX_AMOUNT)} in magnitude`);
        return v;
      }
      break;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      break;
    case 'datetime': {
      const t = typeof v === 'string' ? parseDateTime(v) : null;
      if (t !== null) return clickhouseDateTime(t);
      break;
    }
  }
  throw new RowError(`column '${c.name}' must be ${c.type === 'datetime' ? 'an RFC 3339 datetime' : `a ${c.type}`}`);
}

/** A ClickHouse JSON row to the API's form: datetimes as RFC 3339, bookkeeping columns dropped. */
export function rowForAnswer(def: TableBody, row: Record<string, unknown>): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const c of columnsOf(def)) {
    const v = row[c.name];
    if (v === null || v === undefined) out[c.name] = null;
    else if (c.type === 'datetime') out[c.name] = isoDateTime(parseDateTime(String(v))!);
    else if (c.type === 'number') out[c.name] = Number(v);
    else out[c.name] = v as Value;
  }
  return out;
}

/** Column types as expressions see them. */
export const columnTypes = (def: TableBody): Map<string, ValueType> => new Map(columnsOf(def).map((c) => [c.name, c.type]));
