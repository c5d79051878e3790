import type { ZodType } from 'zod';
import type { Clock } from '../../infra/clock.js';
import type { CounterReader } from '../ports.js';
import { transactionSchema } from '../../schemas/http/rules.js';
import type { TableDefinition } from '../../domain/rules/custom-table.js';
import type { EvalContext, Row } from '../../domain/rules/evaluate.js';
import { compileRule, processedRulesJson, ruleResultsJson, runRule, type CompiledRule, type ProcessedRule, type VersionedRule } from '../../domain/rules/rule.js';
import { buildSchema, buildSqlSources } from '../../domain/rules/schema.js';
import type { SqlSources } from '../../domain/rules/sql.js';
import type { Ref, Schema } from '../../domain/rules/typed-ast.js';
import { isoDateTime, toJson, toRuntime, type Value, type ValueType } from '../../domain/rules/values.js';
import type { Definitions, OrgDefinitions } from './definitions.js';
import type { TableData } from './table-data.js';

/** What one evaluation decided; travels with the transaction on the topic and lands in `decisions`. */
export interface Decision {
  decided_at: string;
  /** Sum of the scores of the triggered rules. */
  score: number;
  triggered_rules_count: number;
  processed_rules: ProcessedRule[];
}

/** One organization's compiled view: the schema expressions check against and every rule compiled once. */
export interface OrgContext {
  defs: OrgDefinitions;
  schema: Schema;
  sources: SqlSources;
  tables: ReadonlyMap<string, TableDefinition>;
  rules: ReadonlyMap<string, CompiledRule>;
  active: CompiledRule[];
  /** What the active rules read, fetched once per transaction. */
  activeNeeds: Needs;
  transaction: ZodType<Record<string, unknown>>;
  datetimeFields: string[];
}

interface Needs {
  counters: boolean;
  rows: string[];
  aggregates: string[];
}

export interface Decided {
  decision: Decision;
  rulesJson: string;
  resultsJson: string;
  trace?: Record<string, unknown>;
}

export class UnknownRulesError extends Error {}

export interface EngineOptions {
  definitions: Definitions;
  tableData: TableData;
  counters: CounterReader;
  clock: Clock;
  trace: boolean;
}

export interface Engine {
  context(orgId: string): Promise<OrgContext>;
  /**
   * Evaluates a validated transaction against the active rules, or exactly the listed ones.
   * `rulesJson` is the processedRules array of the answer, `resultsJson` the compact rule results
   * (RuleResult[]) stored with the decision.
   */
  decide(orgId: string, tx: Record<string, unknown>, ruleIds?: string[]): Promise<Decided>;
}

function needsOf(rules: CompiledRule[]): Needs {
  const refs: Ref[] = rules.flatMap((r) => r.refs);
  const uniq = (xs: string[]) => [...new Set(xs)];
  return {
    counters: refs.some((r) => r.source === 'counter'),
    rows: uniq(refs.flatMap((r) => (r.source === 'table' ? [r.table] : []))),
    aggregates: uniq(refs.flatMap((r) => (r.source === 'aggregate' ? [r.table] : []))),
  };
}

/**
 * Turns stored definitions into compiled rules (once per rule version and schema) and evaluates
 * transactions: each source a rule set reads (counters, table rows, window aggregates) is fetched
 * once, in parallel, then every rule runs as compiled closures.
 */
export function createEngine(o: EngineOptions): Engine {
  const contexts = new Map<string, { defs: OrgDefinitions; counterKey: string; ctx: OrgContext }>();
  /** Per organization, compiled rules by `id@version`; a rebuilt context keeps only current versions. */
  const compiled = new Map<string, Map<string, { schemaKey: string; rule: CompiledRule }>>();

  function compileAll(orgId: string, rules: VersionedRule[], schema: Schema, schemaKey: string): Map<string, CompiledRule> {
    const previous = compiled.get(orgId);
    const next = new Map<string, { schemaKey: string; rule: CompiledRule }>();
    for (const r of rules) {
      const key = `${r.id}@${r.version}`;
      const hit = previous?.get(key);
      next.set(key, hit && hit.schemaKey === schemaKey ? hit : { schemaKey, rule: compileRule(r, schema) });
    }
    compiled.set(orgId, next);
    return new Map([...next.values()].map((c) => [c.rule.rule.id, c.rule]));
  }

  async function context(orgId: string): Promise<OrgContext> {
    const [defs, counters] = await Promise.all([o.definitions.snapshot(orgId), o.counters.describe(orgId)]);
    const counterKey = JSON.stringify(counters);
    const hit = contexts.get(orgId);
    if (hit && hit.defs === defs && hit.counterKey === counterKey) return hit.ctx;

    const counterTypes = { tableName: counters.tableName, counters: counters.counters.map((c) => ({ name: c.name, type: c.type as ValueType })) };
    const schema = buildSchema({ customFields: defs.fields, counters: counterTypes, tables: defs.tables });
    const schemaKey = JSON.stringify([defs.fields, counterTypes, defs.tables]);
    const rules = compileAll(orgId, defs.rules, schema, schemaKey);
    const active = [...rules.values()].filter((r) => r.rule.active);
    const ctx: OrgContext = {
      defs,
      schema,
      sources: buildSqlSources(orgId, counters.tableName, defs.tables),
      tables: new Map(defs.tables.map((t) => [t.tableName, t])),
      rules,
      active,
      activeNeeds: needsOf(active),
      transaction: transactionSchema(defs.fields) as ZodType<Record<string, unknown>>,
      datetimeFields: defs.fields.filter((f) => f.fieldType === 'datetime').map((f) => f.name),
    };
    contexts.set(orgId, { defs, counterKey, ctx });
    return ctx;
  }

  async function inputs(orgId: string, ctx: OrgContext, entityId: string, needs: Needs) {
    const counters: Promise<Record<string, number | string | null>> = needs.counters ? o.counters.values(orgId, entityId) : Promise.resolve({});
    const rowTables = needs.rows.flatMap((t) => (ctx.tables.has(t) ? [ctx.tables.get(t)!] : []));
    const aggTables = needs.aggregates.flatMap((t) => (ctx.tables.has(t) ? [ctx.tables.get(t)!] : []));
    const [counterValues, rows, aggregates] = await Promise.all([
      counters,
      Promise.all(rowTables.map((t) => o.tableData.lookup(orgId, t, entityId))),
      Promise.all(aggTables.map((t) => o.tableData.aggregates(orgId, t, entityId))),
    ]);
    const tables: Record<string, Row | undefined> = {};
    rowTables.forEach((t, i) => (tables[t.tableName] = rows[i]));
    aggTables.forEach((t, i) => (tables[t.tableName] = { ...tables[t.tableName], ...aggregates[i] }));
    const counterRow: Record<string, ReturnType<typeof toRuntime>> = {};
    for (const [name, type] of ctx.schema.counters) counterRow[name] = toRuntime(type, counterValues[name] ?? (type === 'number' ? 0 : null));
    return { counters: counterRow, tables };
  }

  return {
    context,
    async decide(orgId, tx, ruleIds) {
      const started = performance.now();
      const ctx = await context(orgId);
      let chosen = ctx.active;
      let needs = ctx.activeNeeds;
      if (ruleIds) {
        const missing = ruleIds.filter((id) => !ctx.rules.has(id));
        if (missing.length > 0) throw new UnknownRulesError(`unknown rule id${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
        chosen = [...new Set(ruleIds)].map((id) => ctx.rules.get(id)!);
        needs = needsOf(chosen);
      }
      const entityId = String(tx.entity_id);
      const data = await inputs(orgId, ctx, entityId, needs);
      const transaction: Record<string, Value | undefined> = { ...(tx as Row) };
      for (const f of ctx.datetimeFields) transaction[f] = toRuntime('datetime', tx[f]);
      const evalCtx: EvalContext = { transaction, counters: data.counters, tables: data.tables };
      const processed = chosen.map((r) => runRule(r, evalCtx));
      const triggered = processed.filter((p) => p.triggered);
      const decision: Decision = {
        decided_at: isoDateTime(o.clock.now()),
        score: triggered.reduce((s, p) => s + p.score, 0),
        triggered_rules_count: triggered.length,
        processed_rules: processed,
      };
      const rulesJson = processedRulesJson(chosen, processed);
      const resultsJson = ruleResultsJson(chosen, processed);
      if (!o.trace) return { decision, rulesJson, resultsJson };
      const show = (types: ReadonlyMap<string, ValueType>, row: Row | undefined) =>
        row ? Object.fromEntries(Object.entries(row).map(([k, v]) => [k, toJson(types.get(k) ?? 'number', v ?? null)])) : null;
      const trace = {
        rules_evaluated: processed.length,
        duration_ms: Number((performance.now() - started).toFixed(3)),
        inputs: {
          counters: needs.counters ? show(ctx.schema.counters, data.counters) : {},
          tables: Object.fromEntries(Object.entries(data.tables).map(([t, row]) => [t, show(new Map([...(ctx.schema.tables.get(t)?.columns ?? []), ...(ctx.schema.tables.get(t)?.aggregates ?? [])]), row)])),
        },
        errors: processed.flatMap((p) => p.evaluations.filter((e) => e.error).map((e) => ({ ruleId: p.ruleId, evaluation: e.name, error: e.error }))),
      };
      return { decision, rulesJson, resultsJson, trace };
    },
  };
}
