import { describe, expect, it } from 'vitest';
import { testSchema } from '../../test/fixtures/rules-schema.js';
import { checkExpression } from './check.js';
import { compile, type EvalContext } from './evaluate.js';
import { compileRule, ruleResultsJson, runRule, type VersionedRule } from './rule.js';
import { parseDateTime, type Value } from './values.js';

const ctx: EvalContext = {
  transaction: {
    transaction_id: 't1', entity_id: 'e1', amount: 150, currency: 'NGN', transaction_date: '2024-03-01', transaction_time: '10:00:00',
    pep: true, risk_score: null, channel: 'web_checkout', last_login: parseDateTime('2024-02-28T12:00:00Z'),
  },
  counters: { txn_count_1h: 4, amount_sum_24h: 0 },
  tables: { accounts: { id: 'e1', tier: 'gold', limit_amount: 100, frozen: false, opened_at: null }, payments: { count_1h: 2, value_1d: 75 } },
};

const run = (src: string): Value => compile(checkExpression(src, testSchema))(ctx);

describe('evaluator', () => {
  it.each<[string, Value]>([
    ['amount > 100', true],
    ['amount + 50 * 2 = 250', true],
    ['(amount + 50) * 2 = 400', true],
    ['amount / 0 > 1e308', true],
    ["currency IN ('USD', 'NGN')", true],
    ["currency NOT IN ('USD', 'NGN')", false],
    ['amount BETWEEN 100 AND 150', true],
    ['amount NOT BETWEEN 100 AND 149', true],
    ["channel LIKE 'web\\_%'", true],
    ["channel LIKE 'web_'", false],
    ["transaction_date >= '2024-03-01'", true],
    ["last_login < '2024-02-28T13:00:00+01:00'", false],
    ['entity_counters.txn_count_1h >= 4 AND accounts.tier = \'gold\'', true],
    ['amount > accounts.limit_amount', true],
    ['accounts.frozen', false],
    ['payments.count_1h + payments.value_1d = 77', true],
    ['pep = TRUE AND TRUE > FALSE', true],
  ])('%s is %s', (src, expected) => {
    expect(run(src)).toBe(expected);
  });

  it.each<[string, Value]>([
    ['risk_score > 1', null],
    ['risk_score + 1 = 1', null],
    ['NOT risk_score > 1', null],
    ['risk_score > 1 AND amount > 1000', false],
    ['risk_score > 1 AND amount > 1', null],
    ['risk_score > 1 OR amount > 1', true],
    ['risk_score > 1 OR amount > 1000', null],
    ['risk_score IN (1, 2)', null],
    ['risk_score IS NULL', true],
    ['accounts.opened_at IS NOT NULL', false],
    ['amount BETWEEN risk_score AND 10', false],
    ['amount BETWEEN risk_score AND 1000', null],
    ['device_fingerprint LIKE \'%\'', null],
  ])('three-valued logic: %s is %s', (src, expected) => {
    expect(run(src)).toBe(expected);
  });

  it('reads a missing table row as NULL columns and missing aggregates as 0', () => {
    const empty: EvalContext = { ...ctx, tables: {} };
    expect(compile(checkExpression('accounts.tier IS NULL AND payments.count_1h = 0', testSchema))(empty)).toBe(true);
  });
});

describe('rules', () => {
  const rule: VersionedRule = {
    id: 'r1', version: 7, name: 'big', description: '', threshold: 2, useAi: false, active: true,
    evaluations: [
      { name: 'large', expression: 'amount > 100', weight: 1.5 },
      { name: 'unknown_score', expression: 'risk_score > 0.5', weight: 1 },
      { name: 'pep', expression: 'pep', weight: 0.5 },
    ],
    actions: [{ type: 'flag', description: 'review' }],
  };

  it('triggers when the weights of true evaluations reach the threshold; NULL adds nothing', () => {
    expect(runRule(compileRule(rule, testSchema), ctx)).toEqual({
      ruleId: 'r1', name: 'big', triggered: true, score: 2, threshold: 2, actions: rule.actions,
      evaluations: [{ name: 'large', result: true }, { name: 'unknown_score', result: false }, { name: 'pep', result: true }],
    });
    const higher = { ...rule, threshold: 2.5 };
    expect(runRule(compileRule(higher, testSchema), ctx)).toMatchObject({ triggered: false, score: 2, actions: [] });
  });

  it('keeps an evaluation that no longer checks as a failure with its reason', () => {
    const broken = { ...rule, evaluations: [{ name: 'gone', expression: 'ghosts.x = 1', weight: 5 }] };
    expect(runRule(compileRule(broken, testSchema), ctx).evaluations).toEqual([{ name: 'gone', result: false, error: "line 1, column 1: unknown table 'ghosts'" }]);
  });
});

describe('processed rules JSON', () => {
  it('is exactly what JSON.stringify writes', async () => {
    const { processedRulesJson } = await import('./rule.js');
    const rule: VersionedRule = {
      id: 'r"1', version: 3, name: 'quote " and \u2028', description: '', threshold: 0.1 + 0.2, useAi: false, active: true,
      evaluations: [{ name: 'a', expression: 'amount > 1', weight: 0.1 }, { name: 'b"', expression: 'ghosts.x = 1', weight: 1 }],
      actions: [{ type: 't', description: 'd' }],
    };
    for (const threshold of [0.1, 5]) {
      const compiled = [compileRule({ ...rule, threshold }, testSchema), compileRule({ ...rule, id: 'r2' }, testSchema)];
      const processed = compiled.map((c) => runRule(c, ctx));
      expect(processedRulesJson(compiled, processed)).toBe(JSON.stringify(processed));
    }
  });
});

describe('rule results JSON', () => {
  it('is the JSON of [rule_id, rule_version, triggered, score, results] per rule, flags as 0/1', () => {
    const rule: VersionedRule = {
      id: 'r"1', version: 1763776000000123, name: 'n', description: '', threshold: 1, useAi: false, active: true,
      evaluations: [{ name: 'a', expression: 'amount > 100', weight: 0.1 + 0.2 }, { name: 'b', expression: 'amount < 0', weight: 1 }, { name: 'c', expression: 'ghosts.x = 1', weight: 1 }],
      actions: [],
    };
    const compiled = [compileRule(rule, testSchema), compileRule({ ...rule, id: 'r2', version: 2, threshold: 0.3 }, testSchema)];
    const processed = compiled.map((c) => runRule(c, ctx));
    expect(JSON.parse(ruleResultsJson(compiled, processed))).toEqual([
      ['r"1', 1763776000000123, 0, 0.1 + 0.2, [1, 0, 0]],
      ['r2', 2, 1, 0.1 + 0.2, [1, 0, 0]],
    ]);
  });
});
