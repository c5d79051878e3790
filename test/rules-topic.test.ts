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

/** What the rule engine writes, with one character inserted, deleted or replaced: near misses of the shape. */
const edited = fc
  .tuple(
    written.filter((r) => r.length > 0),
    fc.nat(),
    fc.constantFrom('insert', 'delete', 'replace'),
    fc.constantFrom(...'"\\,[]01-.eE+ 9u/'.split(''), '\u0000', '\n', 'é', '\ud800'),
  )
  .map(([results, at, op, ch]) => {
    const text = JSON.stringify(results);
    const i = at % text.length;
    if (op === 'insert') return text.slice(0, i) + ch + text.slice(i);
    return text.slice(0, i) + (op === 'replace' ? ch : '') + text.slice(i + 1);
  });

/** Runs `accepted => schema accepts` over `texts`; answers how many texts the shape accepted and refused. */
function holdsToSchema(texts: fc.Arbitrary<string>, numRuns: number): { accepted: number; refused: number } {
  const seen = { accepted: 0, refused: 0 };
  fc.assert(
    fc.property(texts, (text) => {
      if (!isCompactRuleResults(text)) {
        seen.refused++;
        return;
      }
      seen.accepted++;
      expect(ruleResults.safeParse(JSON.parse(text)).success).toBe(true);
    }),
    { numRuns },
  );
  return seen;
}

describe('the compact rule-results shape', () => {
  it('accepts only text the schema accepts', () => {
    // Near misses of what the rule engine writes: the shape must accept many and refuse many, or
    // the property would hold only because its premise never does.
    const near = holdsToSchema(edited, 20_000);
    expect(near.accepted).toBeGreaterThan(2_000);
    expect(near.refused).toBeGreaterThan(2_000);
    holdsToSchema(looseResults.map((v) => JSON.stringify(v) ?? ''), 20_000);
    holdsToSchema(
      fc.tuple(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ maxLength: 30 })).map(([head, tail]) => `[["${head}${tail}`),
      20_000,
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
    // A version past 2^53 is not a safe integer, which the schema refuses (found by the property above).
    expect(isCompactRuleResults('[["r",9007199254740992,1,1,[1]]]')).toBe(false);
    expect(ruleResults.safeParse([['r', 9007199254740992, 1, 1, [1]]]).success).toBe(false);
    expect(isCompactRuleResults('[["r",999999999999999,1,1,[1]]]')).toBe(true);
    expect(isCompactRuleResults(`[["r",1,1,1${'0'.repeat(400)},[1]]]`)).toBe(false);
    expect(isCompactRuleResults(JSON.stringify([['r', 1, 1, 9.999999999999999e20, [1]]]))).toBe(true);
    expect(isCompactRuleResults('[["",1,1,1,[1]]]')).toBe(false);
    expect(isCompactRuleResults('[["r",-1,1,1,[1]]]')).toBe(false);
    expect(isCompactRuleResults('[]')).toBe(true);
  });
});
