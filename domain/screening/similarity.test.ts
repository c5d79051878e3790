import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonical } from './normalize.js';
import { jaroWinkler, phoneticKeys, TOKEN_FLOOR, tokenSimilarity } from './similarity.js';

describe('jaroWinkler', () => {
  it.each([
    ['martha', 'marhta', 0.961],
    ['dwayne', 'duane', 0.84],
    ['dixon', 'dicksonx', 0.813],
  ])('%s ~ %s = %d', (a, b, expected) => {
    expect(jaroWinkler(a, b)).toBeCloseTo(expected, 2);
  });

  it('is 1 for equal strings, 0 for disjoint, symmetric and within [0, 1]', () => {
    expect(jaroWinkler('abc', 'abc')).toBe(1);
    expect(jaroWinkler('abc', 'xyz')).toBe(0);
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (a, b) => {
        const s = jaroWinkler(a, b);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        expect(s).toBeCloseTo(jaroWinkler(b, a), 10);
      }),
    );
  });
});

describe('tokenSimilarity', () => {
  const sim = (a: string, b: string) => tokenSimilarity(a, b, phoneticKeys(a), phoneticKeys(b));
  it('tolerates a typo and a transliteration, not a different name', () => {
    expect(sim('nasrallah', 'nasralah')).toBeGreaterThan(0.9);
    expect(sim('mohammed', 'muhammad')).toBeGreaterThanOrEqual(0.86);
    expect(sim('ali', 'alo')).toBe(0);
    expect(sim('smith', 'jones')).toBe(0);
  });
  it('matches an initial to the name it abbreviates', () => {
    expect(sim('j', 'john')).toBe(0.6);
    expect(sim('k', 'john')).toBe(0);
  });
});

describe('one slip of the keyboard, scored by length', () => {
  it('keeps a changed, dropped, added or swapped letter of a short name above the floor, the first letter too', () => {
    for (const [q, c] of [['olga', 'dlga'], ['ivan', 'vian'], ['igor', 'igr'], ['pong', 'fong'], ['yong', 'yog']]) {
      expect(tokenSimilarity(q!, c!, phoneticKeys(q!), phoneticKeys(c!)), `${q} ~ ${c}`).toBeGreaterThanOrEqual(TOKEN_FLOOR);
    }
  });

  it('values one changed letter of a 4-letter name below one of a 12-letter name', () => {
    const short = tokenSimilarity('dala', 'fala', [], []);
    const long = tokenSimilarity('kudryavtsevs', 'fudryavtsevs', [], []);
    expect(short).toBeGreaterThan(0);
    expect(long).toBeGreaterThan(short);
    expect(tokenSimilarity('kim', 'kin', [], [])).toBe(0); // three letters: another name
  });

  it('lets a long word bear two edits, which canonical spelling can make of one slip', () => {
    // `Ebrahximi`: the x of a slip is spelled ks.
    expect(tokenSimilarity('ebrahksimi', 'ebrahimi', [], [])).toBeGreaterThanOrEqual(TOKEN_FLOOR);
    expect(tokenSimilarity('petrov', 'pitrof', [], [])).toBe(0); // six letters: two edits make another name
  });
});

describe('short words whose consonants differ', () => {
  // As the index compares them: canonical spelling, with the word as written beside it.
  const sim = (a: string, b: string) => {
    const [x, y] = [canonical(a), canonical(b)];
    return tokenSimilarity(x, y, phoneticKeys(x), phoneticKeys(y), a, b);
  };

  it('are other names, though Jaro-Winkler rates them above the floor (ordinary names that flagged listed people)', () => {
    for (const [q, c] of [['miller', 'mayer'], ['linda', 'lidia'], ['kaya', 'kani'], ['becker', 'becerra'], ['mary', 'martin'], ['ayse', 'arie']]) {
      expect(jaroWinkler(canonical(q!), canonical(c!)), `${q} ~ ${c} by Jaro-Winkler`).toBeGreaterThanOrEqual(TOKEN_FLOOR);
      expect(sim(q!, c!), `${q} ~ ${c}`).toBe(0);
    }
  });

  it('keep their score when they differ as transliterations do: vowels, sounds exchanged, letters added at an end', () => {
    for (const [q, c] of [['usama', 'osama'], ['ladin', 'laden'], ['kazim', 'kadhim'], ['haris', 'harith'], ['sergei', 'serhii'], ['atef', 'atif'], ['wang', 'wong'], ['marko', 'mark'], ['hizbul', 'hizb']]) {
      expect(sim(q!, c!), `${q} ~ ${c}`).toBeGreaterThanOrEqual(Math.max(TOKEN_FLOOR, jaroWinkler(canonical(q!), canonical(c!)) - 1e-9));
    }
  });

  it('are worth one slip when they are one: a consonant changed in a short name still matches, at the slip value', () => {
    for (const [q, c] of [['olga', 'olma'], ['hamid', 'hamil']]) {
      expect(jaroWinkler(q!, c!), `${q} ~ ${c} by Jaro-Winkler`).toBeGreaterThan(1 - 0.6 / q!.length);
      expect(sim(q!, c!), `${q} ~ ${c}`).toBeCloseTo(1 - 0.6 / q!.length, 6);
    }
  });

  it('leave long words to Jaro-Winkler, which they vary by derivation too', () => {
    expect(sim('revolution', 'revolutionary')).toBeGreaterThanOrEqual(TOKEN_FLOOR);
    expect(sim('karpiankou', 'karpenkov')).toBeGreaterThanOrEqual(TOKEN_FLOOR); // Belarusian and Russian spellings
  });
});
