import { describe, expect, it } from 'vitest';
import { NameIndex } from './index.js';
import { canonical } from './normalize.js';
import { phoneticKeys, tokenSimilarity } from './similarity.js';
import { DEFAULT_THRESHOLDS } from './screen.js';

/**
 * Issue 16: one slip of the keyboard in a short name, and two neighbouring letters swapped, where
 * canonical spelling (`x` -> `ks`, `kh` -> `h`, doubled letters, `y` -> `i`) turns the one edit
 * of the written word into two, or hides it.
 */
const LISTED = [
  'Teodor VARGA',
  'Rustam KHOLOV',
  'Ivo ZORAVAN',
  'Petra KHALOVA',
  'Tamin POUYA',
  'Lenka MIRKOVA',
];

/** Other names sharing the first names, so the surname is the rarest token and carries the match. */
const OTHERS = LISTED.flatMap((n, i) => Array.from({ length: 30 }, (_, k) => `${n.split(' ')[0]} Other${String.fromCharCode(97 + k % 26)}${i}${k}`));

async function build(): Promise<NameIndex> {
  return NameIndex.build([...LISTED.map((text, ref) => ({ text, ref })), ...OTHERS.map((text, i) => ({ text, ref: 100 + i }))]);
}

describe('a slip in the written word reaches the candidates and scores as one slip', () => {
  it.each([
    ['Teodor Xvarga', 0], // a letter added that canonical spelling writes as two (`ksvarga`)
    ['Rustam Kgholov', 1], // a letter put inside `kh`, which canonical spelling reads as `h`
    ['Ivo Zoraan', 2], // a letter dropped next to its double, which canonical spelling folds
    ['Petra Kahlova', 3], // two letters swapped across `kh`
    ['Tamin Poyua', 4], // two letters swapped across `ou`, which canonical spelling reads as `u`
    ['Lenka Mirkovx', 5], // the last letter changed to one canonical spelling writes as two
  ])('%s finds listed name %i', async (query, ref) => {
    const index = await build();
    const prepared = index.prepare(query);
    expect(index.retrieve(prepared, { minScore: 0.6 })).toContain(ref);
    const [hit] = index.search(prepared, { minScore: 0.6 });
    expect(hit?.ref).toBe(ref);
    expect(hit!.alignment.score).toBeGreaterThanOrEqual(DEFAULT_THRESHOLDS.review);
  });

  it('values the slip by the length of the written word', () => {
    const sim = (q: string, c: string) => tokenSimilarity(canonical(q), canonical(c), phoneticKeys(canonical(q)), phoneticKeys(canonical(c)), q, c);
    const short = sim('xvarga', 'varga');
    const long = sim('xvargamovich', 'vargamovich');
    expect(short).toBeGreaterThan(0);
    expect(long).toBeGreaterThan(short);
    // Two slips of the written word are another name.
    expect(sim('xvarha', 'varga')).toBe(0);
  });
});
