import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLike, likeProblem, MAX_LIKE_PATTERN } from './like.js';

/** Reference semantics: dynamic programming over code points, obviously right and O(n·m). */
function reference(pattern: string, s: string): boolean {
  const p: (number | '%')[] = [];
  const cps = [...pattern].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < cps.length; i++) {
    if (cps[i] === 0x5c) p.push(cps[++i]!);
    else if (cps[i] === 0x25) p.push('%');
    else p.push(cps[i] === 0x5f ? -1 : cps[i]!);
  }
  const t = [...s].map((c) => c.codePointAt(0)!);
  let row = new Array<boolean>(t.length + 1).fill(false);
  row[0] = true;
  for (const tok of p) {
    const next = new Array<boolean>(t.length + 1).fill(false);
    if (tok === '%') {
      for (let j = 0; j <= t.length; j++) next[j] = row[j]! || (j > 0 && next[j - 1]!);
    } else {
      for (let j = 1; j <= t.length; j++) next[j] = row[j - 1]! && (tok === -1 || tok === t[j - 1]);
    }
    row = next;
  }
  return row[t.length]!;
}

describe('LIKE', () => {
  it.each<[string, string, boolean]>([
    ['abc', 'abc', true],
    ['abc', 'abcd', false],
    ['a%', 'a', true],
    ['a%a', 'a', false],
    ['%a%a%', 'aa', true],
    ['%a%a%', 'a', false],
    ['_', '😀', true],
    ['__', '😀', false],
    ['%😀_', 'x😀é', true],
    ['50\\%', '50%', true],
    ['50\\%', '500', false],
    ['a\\_b', 'a_b', true],
    ['a\\_b', 'axb', false],
    ['a\\\\', 'a\\', true],
    ['ABC', 'abc', false],
    ['%', '', true],
    ['', '', true],
    ['_%_', 'a', false],
  ])('%s on %s is %s', (pattern, s, want) => {
    expect(likeProblem(pattern)).toBeNull();
    expect(compileLike(pattern)(s)).toBe(want);
  });

  it('agrees with the reference on random patterns and inputs', () => {
    const piece = fc.constantFrom('a', 'b', 'é', '😀', '%', '_', '\\%', '\\_', '\\\\');
    const pattern = fc.array(piece, { maxLength: 70 }).map((a) => a.join(''));
    const text = fc.array(fc.constantFrom('a', 'b', 'é', '😀', '%', '_', '\\'), { maxLength: 80 }).map((a) => a.join(''));
    fc.assert(fc.property(pattern, text, (p, s) => compileLike(p)(s) === reference(p, s)), { numRuns: 3000 });
  });

  // A backtracking matcher (the regular expression this replaced) never finishes these.
  it.each<[string, string, boolean]>([
    ['%a%a%a%a%a%a%a%a%a%a%b', 'a'.repeat(10_000), false],
    ['%a%a%a%a%a%a%a%a%a%a%a', 'a'.repeat(10_000), true],
    [`%${'_'.repeat(40)}b%${'a_'.repeat(30)}c`, 'a'.repeat(10_000), false],
    [`${'%a'.repeat(200)}%b`, 'ab'.repeat(5_000), true],
  ])('adversarial pattern %# on 10,000 characters', (pattern, s, want) => {
    expect(compileLike(pattern)(s)).toBe(want);
  });

  it('refuses a pattern longer than the limit, naming it', () => {
    expect(likeProblem('a'.repeat(MAX_LIKE_PATTERN + 1))).toMatch(/at most 256 characters/);
  });
});
