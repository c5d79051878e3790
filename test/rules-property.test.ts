import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkExpression } from '../domain/rules/check.js';
import type { Row } from '../domain/rules/evaluate.js';
import { parseDateTime } from '../domain/rules/values.js';
import { schema, startBackends, type Backends } from './fixtures/rules-backends.js';

/**
 * Random well-typed expressions from the grammar (as source text, so the parser is in the loop)
 * over random transactions: the in-process evaluator and the SQL on chDB give the same value.
 */
let b: Backends;
beforeAll(async () => {
  b = await startBackends();
});
afterAll(async () => {
  await b?.close();
});

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;
const text = fc.array(fc.constantFrom('a', 'b', 'B', '_', '%', 'é', "'", ' ', '5'), { maxLength: 4 }).map((a) => a.join(''));
const likePattern = fc.array(fc.constantFrom('a', 'b', '%', '_', '\\%', '\\_', '\\\\', 'é', "'"), { maxLength: 4 }).map((a) => a.join(''));
const numLiteral = fc.oneof(fc.integer({ min: -3, max: 3 }).map(String), fc.constantFrom('0.5', '1250.5', '1e9', '100', '0.1', '30.5'));
const dates = fc.constantFrom('1999-12-31', '2024-01-01', '2024-02-29', '2024-03-01');
const datetimes = fc.constantFrom('2024-02-28T12:00:00Z', '2019-12-31T23:59:59.999Z', '2024-03-01T13:00:00+01:00');

const NUM_REFS = ['amount', 'risk_score', 'entity_counters.txn_count_1h', 'entity_counters.amount_sum_24h', 'accounts.limit_amount', 'payments.count_1h', 'payments.value_1d'];
const STR_REFS = ['currency', 'transaction_type', 'channel', 'device_fingerprint', 'accounts.tier', 'transaction_time', 'accounts.id'];
const BOOL_REFS = ['pep', 'vip', 'beneficiary_is_cross_border', 'accounts.frozen'];

const { bool } = fc.letrec<{ num: string; str: string; bool: string }>((tie) => ({
  num: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numLiteral,
    fc.constantFrom(...NUM_REFS),
    tie('num').map((n) => `-(${n})`),
    fc.tuple(tie('num'), fc.constantFrom('+', '-', '*', '/'), tie('num')).map(([l, op, r]) => `(${l} ${op} ${r})`),
  ),
  str: fc.oneof(text.map(quote), fc.constantFrom(...STR_REFS)),
  bool: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...BOOL_REFS, 'TRUE', 'FALSE'),
    fc.tuple(tie('num'), fc.constantFrom('=', '!=', '<', '<=', '>', '>='), tie('num')).map(([l, op, r]) => `${l} ${op} ${r}`),
    fc.tuple(tie('str'), fc.constantFrom('=', '!=', '<', '>='), tie('str')).map(([l, op, r]) => `${l} ${op} ${r}`),
    fc.tuple(fc.constantFrom(...BOOL_REFS), fc.constantFrom('=', '!=', '<', '>'), fc.constantFrom(...BOOL_REFS, 'TRUE')).map(([l, op, r]) => `${l} ${op} ${r}`),
    fc.tuple(fc.constantFrom('transaction_date', 'signup_date'), fc.constantFrom('<', '>=', '='), dates).map(([l, op, r]) => `${l} ${op} ${quote(r)}`),
    fc.tuple(fc.constantFrom('last_login', 'accounts.opened_at'), fc.constantFrom('<', '>'), datetimes).map(([l, op, r]) => `${l} ${op} ${quote(r)}`),
    fc.tuple(tie('num'), fc.boolean(), fc.array(numLiteral, { minLength: 1, maxLength: 3 })).map(([x, not, list]) => `${x} ${not ? 'NOT IN' : 'IN'} (${list.join(', ')})`),
    fc.tuple(tie('str'), fc.boolean(), fc.array(text, { minLength: 1, maxLength: 3 })).map(([x, not, list]) => `${x} ${not ? 'NOT IN' : 'IN'} (${list.map(quote).join(', ')})`),
    fc.tuple(tie('num'), fc.boolean(), tie('num'), tie('num')).map(([x, not, lo, hi]) => `${x} ${not ? 'NOT BETWEEN' : 'BETWEEN'} ${lo} AND ${hi}`),
    fc.tuple(tie('str'), fc.boolean(), likePattern).map(([x, not, p]) => `${x} ${not ? 'NOT LIKE' : 'LIKE'} ${quote(p)}`),
    fc.tuple(fc.oneof(tie('num'), tie('str'), tie('bool')), fc.boolean()).map(([x, not]) => `(${x}) IS ${not ? 'NOT ' : ''}NULL`),
    tie('bool').map((x) => `NOT (${x})`),
    fc.tuple(tie('bool'), fc.constantFrom('AND', 'OR'), tie('bool')).map(([l, op, r]) => `(${l}) ${op} (${r})`),
  ),
}));

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const transaction: fc.Arbitrary<Row> = fc.record({
  transaction_id: fc.constant('t'),
  entity_id: fc.constantFrom('e1', 'e2', 'e3', 'nobody'),
  amount: fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(0, 0.1, 150.75, 1e9)),
  currency: fc.constantFrom('NGN', 'USD', 'a%B'),
  transaction_date: dates,
  transaction_time: fc.constantFrom('00:00:00', '12:30:00', '23:59:59'),
  transaction_type: maybe(text),
  channel: maybe(text),
  device_fingerprint: maybe(text),
  pep: maybe(fc.boolean()),
  vip: maybe(fc.boolean()),
  beneficiary_is_cross_border: maybe(fc.boolean()),
  risk_score: maybe(fc.constantFrom(0, 0.5, -1, 3)),
  signup_date: maybe(dates),
  last_login: maybe(datetimes.map((d) => parseDateTime(d)!)),
});

describe('property: both back ends agree', () => {
  it('on random expressions and transactions', async () => {
    await fc.assert(
      fc.asyncProperty(bool, transaction, async (src, tx) => {
        const expr = checkExpression(src, schema);
        const local = await b.inProcess(expr, tx);
        const sql = await b.inSql(expr, tx);
        expect({ src, value: sql }).toEqual({ src, value: local });
      }),
      { numRuns: 1000 },
    );
  });
});
