import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCompactRuleResults, ruleResults } from '../pipelines/rules/transactions-topic.js';

/**
 * The decisions consumer stores a rule-results header as written when it has the compact shape the
 * rule engine writes, and parses and checks anything else against `ruleResults`. The shape must
 * never accept what the schema refuses, and must accept what the rule engine writes.
 */
const flag = fc.constantFrom(0, 1);
const anyJson = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('', '"', '\\', '\u0000', '\n', 'é', '\ud800'),
  fc.integer({ min: -5, max: 5 }),
  fc.double(),
  fc.constantFrom(0.5, -0, 1e21, 1e-7, 2, 1.5, null, true, [], {}),
);
const looseTuple = fc.tuple(
  fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), anyJson),
  fc.oneof(fc.nat(), anyJson),
  fc.oneof(flag, anyJson),
  fc.oneof(fc.double(), fc.integer(), anyJson),
  fc.oneof(fc.array(flag, { maxLength: 4 }), fc.array(anyJson, { maxLength: 3 }), anyJson),
);
const looseResults = fc.oneof(fc.array(looseTuple, { maxLength: 4 }), fc.array(fc.array(anyJson, { maxLength: 6 }), { maxLength: 3 }), anyJson);
const written = fc.array(
  fc.tuple(
    fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 8 })),
    fc.nat(),
    flag,
    fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(0.5, 2.25, -1.75, 1e-7, 3e20)),
    fc.array(flag, { maxLength: 5 }),
  ),
  { maxLength: 60 },
);

describe('the compact rule-results shape', () => {
  it('accepts only text the schema accepts', () => {
    fc.assert(
      fc.property(looseResults, (value) => {
        const text = JSON.stringify(value);
        if (text !== undefined && isCompactRuleResults(text)) expect(ruleResults.safeParse(JSON.parse(text)).success).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `[["${s}`), fc.string({ maxLength: 30 }), (head, tail) => {
        const text = head + tail;
        if (isCompactRuleResults(text)) expect(ruleResults.safeParse(JSON.parse(text)).success).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it('accepts what the rule engine writes, and nothing with spaces or huge exponents', () => {
    fc.assert(
      fc.property(written, (results) => {
        expect(isCompactRuleResults(JSON.stringify(results))).toBe(true);
      }),
    );
    expect(isCompactRuleResults('[["r",1,1,1e999,[1]]]')).toBe(false);
    expect(isCompactRuleResults('[["r", 1, 1, 1, [1]]]')).toBe(false);
    expect(isCompactRuleResults('[["",1,1,1,[1]]]')).toBe(false);
    expect(isCompactRuleResults('[["r",-1,1,1,[1]]]')).toBe(false);
    expect(isCompactRuleResults('[]')).toBe(true);
  });
});
