import { createRequire } from 'node:module';
import { ACCOUNT_ROWS, COUNTERS, counterEvents, RULE_BODIES, TIERS, type Transaction } from '../../rules-workload.js';

/**
 * The rule engine's benchmark workload (bench/rules-workload.ts) in json-rules-engine, the peer of
 * the transactions pair: the same 50 rules, each of its three weighted evaluations one
 * json-rules-engine rule, and a rule triggered when the weights of its passing evaluations reach
 * its threshold, as in Weir. json-rules-engine has no arithmetic, so `amount >
 * accounts.limit_amount * 0.5` compares with a fact holding half the limit. The counters and the
 * `accounts` rows are read from maps filled from the same events and rows Weir is given.
 *
 * The package lives in this folder's own node_modules (installed on first use, outside the
 * project's `npm ci`), so it is loaded from here and typed by the little this file uses.
 */

interface Condition {
  fact: string;
  path?: string;
  operator: string;
  value: unknown;
}
type Conditions = { all: (Condition | Conditions)[] } | { any: (Condition | Conditions)[] };
interface JsonRulesEngine {
  addRule(rule: { name: string; conditions: Conditions; event: { type: string } }): unknown;
  run(facts: Record<string, unknown>): Promise<{ events: { type: string }[] }>;
}
type EngineClass = new (rules: unknown[], options: { allowUndefinedFacts: boolean }) => JsonRulesEngine;

const load = (): EngineClass => (createRequire(import.meta.url)('json-rules-engine') as { Engine: EngineClass }).Engine;

/** Each benchmark rule's evaluations as json-rules-engine conditions, in the order of RULE_BODIES. */
function conditions(i: number): Conditions[] {
  const c = (fact: string, operator: string, value: unknown, path?: string): Condition => ({ fact, operator, value, ...(path ? { path } : {}) });
  return [
    { all: [c('amount', 'greaterThan', 100 * (i % 10)), c('currency', 'in', ['NGN', 'USD'])] },
    { any: [c('counters', 'greaterThanInclusive', i % 4, '$.logins_1h'), c('counters', 'greaterThan', i * 50, '$.amount_24h')] },
    { all: [c('account', 'equal', TIERS[i % 3], '$.tier'), c('amount', 'greaterThan', { fact: 'account', path: '$.half_limit' }), c('account', 'equal', false, '$.frozen')] },
  ];
}

/** The counters of every entity as Weir computes them from counterEvents (all inside both windows). */
function counterValues(): Map<string, Record<string, number>> {
  const values = new Map<string, Record<string, number>>();
  for (const e of counterEvents(Date.now())) {
    const v = values.get(e.entity_id) ?? Object.fromEntries(COUNTERS.map((c) => [c.name, 0]));
    if (e.event_type === 'login') v.logins_1h! += 1;
    else v.amount_24h! += e.value;
    values.set(e.entity_id, v);
  }
  return values;
}

export interface JsonRulesDecision {
  triggeredRulesCount: number;
  /** Per rule: its score and whether it triggered, as `[name, score, triggered]`. */
  results: [string, number, 0 | 1][];
}

/** Builds the engine with the 50 rules; answers a function that decides one transaction. */
export function createJsonRulesDecider(): (tx: Transaction) => Promise<JsonRulesDecision> {
  const Engine = load();
  const engine = new Engine([], { allowUndefinedFacts: true });
  RULE_BODIES.forEach((_, i) => conditions(i).forEach((cond, j) => engine.addRule({ name: `${i}:${j}`, conditions: cond, event: { type: `${i}:${j}` } })));
  const counters = counterValues();
  const accounts = new Map(ACCOUNT_ROWS.map((r) => [r.id, { ...r, half_limit: r.limit_amount * 0.5 }]));
  return async (tx) => {
    const { events } = await engine.run({ ...tx, counters: counters.get(tx.entity_id) ?? {}, account: accounts.get(tx.entity_id) ?? {} });
    const passed = new Set(events.map((e) => e.type));
    let triggered = 0;
    const results = RULE_BODIES.map((rule, i): [string, number, 0 | 1] => {
      const score = rule.evaluations.reduce((sum, ev, j) => sum + (passed.has(`${i}:${j}`) ? ev.weight : 0), 0);
      const hit = score >= rule.threshold ? 1 : 0;
      triggered += hit;
      return [rule.name, score, hit];
    });
    return { triggeredRulesCount: triggered, results };
  };
}
