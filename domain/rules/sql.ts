import type { Row } from './evaluate.js';
import { refsOf, type Ref, type Schema, type TExpr } from './typed-ast.js';
import { clickhouseDateTime, type Value, type ValueType } from './values.js';

/** ClickHouse type of each value type; parameters and table columns use the same ones. */
export const CLICKHOUSE_TYPE: Record<ValueType, string> = {
  string: 'String',
  number: 'Float64',
  boolean: 'Bool',
  date: 'Date32',
  datetime: "DateTime64(3, 'UTC')",
};

/** Backtick-quoted identifier; names are validated upstream, escaping is the second line of defence. */
export const quoteIdent = (name: string): string => `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;

export interface SqlAggregate {
  function: 'count' | 'sum';
  column?: string;
  /** Bucket width; the window is `buckets` buckets ending with the bucket of `now`, as in the window store. */
  bucketMs: number;
  buckets: number;
}

/** Physical layout of what the schema names, for the SQL back end. */
export interface SqlSources {
  orgId: string;
  /** The ClickHouse counter table: org_id, entity_id, one column per counter, updated_at (ReplacingMergeTree). */
  counterTable: string;
  tables: ReadonlyMap<string, { physical: string; idColumn: string; final: boolean; entityColumn?: string; timestampColumn?: string; aggregates: ReadonlyMap<string, SqlAggregate> }>;
}

export interface SqlQuery {
  sql: string;
  /** ClickHouse query parameters (`{name:Type}` in the text); user values never enter the text. */
  params: Record<string, Value>;
}

const TX = '__tx';
const COUNTERS = '__counters';
const tableAlias = (t: string) => `__t_${t}`;
const windowAlias = (t: string) => `__w_${t}`;

class Params {
  readonly values: Record<string, Value> = {};
  private n = 0;
  add(type: ValueType, v: Value): string {
    const name = `p${this.n++}`;
    this.values[name] = toParam(type, v);
    return `{${name}:${CLICKHOUSE_TYPE[type]}}`;
  }
  named(name: string, type: ValueType, v: Value): string {
    this.values[name] = toParam(type, v);
    return `{${name}:Nullable(${CLICKHOUSE_TYPE[type]})}`;
  }
}

const toParam = (type: ValueType, v: Value): Value => (v !== null && type === 'datetime' ? clickhouseDateTime(v as number) : v);

/**
 * Compiles a checked expression to one ClickHouse query answering one row with column `result`
 * (1, 0 or NULL): the transaction is a one-row subquery of parameters; custom tables are LEFT
 * JOINed on their id column = entity_id (FINAL), the counter table likewise on org_id/entity_id,
 * windowState aggregates are computed from the event table with the window store's buckets.
 * `join_use_nulls` makes a missing row NULL, as in process.
 */
export function toClickHouse(expr: TExpr, schema: Schema, sources: SqlSources, transaction: Row | null, now: number): SqlQuery {
  const params = new Params();
  const refs = [...refsOf(expr).values()];
  const txFields = new Set(['entity_id', ...refs.flatMap((r) => (r.source === 'transaction' ? [r.name] : []))]);
  const entity = () => `${quoteIdent(TX)}.${quoteIdent('entity_id')}`;

  const txParam = (f: string) => params.named(`tx_${f}`, schema.fields.get(f) ?? 'string', transaction?.[f] ?? null);
  const columns = [...txFields].map((f) => `${txParam(f)} AS ${quoteIdent(f)}`);
  // Each joined source is also filtered to the entity, so the join reads one entity's rows.
  const entityId = txParam('entity_id');
  const joins: string[] = [];

  const counters = refs.flatMap((r) => (r.source === 'counter' ? [r.name] : []));
  if (counters.length > 0) {
    const org = params.add('string', sources.orgId);
    const cols = ['entity_id', ...counters].map(quoteIdent).join(', ');
    joins.push(
      `LEFT JOIN (SELECT ${cols} FROM ${quoteIdent(sources.counterTable)} FINAL WHERE ${quoteIdent('org_id')} = ${org} AND ${quoteIdent('entity_id')} = ${entityId}) AS ${quoteIdent(COUNTERS)} ON ${quoteIdent(COUNTERS)}.${quoteIdent('entity_id')} = ${entity()}`,
    );
  }
  const tablesUsed = new Set(refs.flatMap((r) => (r.source === 'table' ? [r.table] : [])));
  for (const t of tablesUsed) {
    const src = sourceOf(sources, t);
    joins.push(
      `LEFT JOIN (SELECT * FROM ${quoteIdent(src.physical)}${src.final ? ' FINAL' : ''} WHERE ${quoteIdent(src.idColumn)} = ${entityId}) AS ${quoteIdent(tableAlias(t))} ON ${quoteIdent(tableAlias(t))}.${quoteIdent(src.idColumn)} = ${entity()}`,
    );
  }
  const aggregatesByTable = new Map<string, string[]>();
  for (const r of refs) if (r.source === 'aggregate') aggregatesByTable.set(r.table, [...(aggregatesByTable.get(r.table) ?? []), r.name]);
  for (const [t, names] of aggregatesByTable) {
    const src = sourceOf(sources, t);
    if (!src.entityColumn || !src.timestampColumn) throw new Error(`table ${t} has no windowState`);
    const bucketOf = (width: number) => `intDiv(toUnixTimestamp64Milli(${quoteIdent(src.timestampColumn!)}), ${params.add('number', width)})`;
    const selects = names.map((name) => {
      const a = src.aggregates.get(name)!;
      const floor = Math.floor(now / a.bucketMs) - (a.buckets - 1);
      const inWindow = `${bucketOf(a.bucketMs)} >= ${params.add('number', floor)}`;
      const agg = a.function === 'count' ? `countIf(${inWindow})` : `sumIf(${quoteIdent(a.column!)}, ${inWindow})`;
      return `toFloat64(${agg}) AS ${quoteIdent(name)}`;
    });
    joins.push(
      `LEFT JOIN (SELECT ${quoteIdent(src.entityColumn)} AS ${quoteIdent('__entity')}, ${selects.join(', ')} FROM ${quoteIdent(src.physical)} WHERE ${quoteIdent(src.entityColumn)} = ${entityId} GROUP BY ${quoteIdent(src.entityColumn)}) AS ${quoteIdent(windowAlias(t))} ON ${quoteIdent(windowAlias(t))}.${quoteIdent('__entity')} = ${entity()}`,
    );
  }

  const body = new SqlCompiler(params, schema).expr(expr);
  const sql = [`SELECT toNullable(${body}) AS ${quoteIdent('result')}`, `FROM (SELECT ${columns.join(', ')}) AS ${quoteIdent(TX)}`, ...joins, 'SETTINGS join_use_nulls = 1'].join('\n');
  return { sql, params: params.values };
}

function sourceOf(sources: SqlSources, table: string) {
  const src = sources.tables.get(table);
  if (!src) throw new Error(`no physical table for ${table}`);
  return src;
}

const COMPARE_SQL = { '=': '=', '!=': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;

class SqlCompiler {
  constructor(
    private readonly params: Params,
    private readonly schema: Schema,
  ) {}

  expr(e: TExpr): string {
    switch (e.kind) {
      case 'literal':
        return this.params.add(e.type, e.value);
      case 'ref':
        return this.ref(e.ref);
      case 'neg':
        return `(-${this.expr(e.operand)})`;
      case 'arith':
        return `(${this.expr(e.left)} ${e.op} ${this.expr(e.right)})`;
      case 'not':
        return `(NOT ${this.expr(e.operand)})`;
      case 'logic':
        return `(${this.expr(e.left)} ${e.op} ${this.expr(e.right)})`;
      case 'compare':
        return `(${this.expr(e.left)} ${COMPARE_SQL[e.op]} ${this.expr(e.right)})`;
      case 'between': {
        const x = this.expr(e.operand);
        const inside = `(${x} >= ${this.expr(e.low)} AND ${x} <= ${this.expr(e.high)})`;
        return e.negated ? `(NOT ${inside})` : inside;
      }
      case 'in': {
        const x = this.expr(e.operand);
        if (e.operand.type !== 'number') {
          const values = e.values.map((v) => this.params.add(e.operand.type, v));
          return `(${x} ${e.negated ? 'NOT IN' : 'IN'} (${values.join(', ')}))`;
        }
        // ClickHouse's IN set compares Float64 bits, so -0 would miss 0. Adding +0 turns -0 into 0
        // on both sides. (A chain of equalities is no way out: ClickHouse rewrites it into IN.)
        const values = e.values.map((v) => this.params.add('number', typeof v === 'number' ? v + 0 : v));
        return `((${x} + 0) ${e.negated ? 'NOT IN' : 'IN'} (${values.join(', ')}))`;
      }
      case 'like':
        return `(${this.expr(e.operand)} ${e.negated ? 'NOT LIKE' : 'LIKE'} ${this.params.add('string', e.pattern)})`;
      case 'isNull':
        return `(${this.expr(e.operand)} ${e.negated ? 'IS NOT NULL' : 'IS NULL'})`;
    }
  }

  private ref(r: Ref): string {
    switch (r.source) {
      case 'transaction':
        return `${quoteIdent(TX)}.${quoteIdent(r.name)}`;
      case 'counter': {
        const col = `${quoteIdent(COUNTERS)}.${quoteIdent(r.name)}`;
        // The counters service answers 0 for an entity it has not seen; so does the SQL.
        return this.schema.counters.get(r.name) === 'number' ? `toFloat64(ifNull(${col}, 0))` : `toDateTime64(${col}, 3, 'UTC')`;
      }
      case 'table':
        return `${quoteIdent(tableAlias(r.table))}.${quoteIdent(r.column)}`;
      case 'aggregate':
        return `ifNull(${quoteIdent(windowAlias(r.table))}.${quoteIdent(r.name)}, 0)`;
    }
  }
}
