import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RELATIONSHIP_SETTINGS, DEFAULT_THRESHOLDS, screen, type Decision } from '../domain/screening/screen.js';
import type { Snapshot } from '../domain/screening/snapshot.js';
import { loadSnapshot } from '../infra/sanctions/loader.js';
import { sampleListed } from '../bench/screening-eval/listed.js';
import { REAL_LISTS_DIR } from './fixtures/sanctions/paths.js';

/**
 * Issue 9: a listed party must not pass screening by adding a character. Symbols, emoji, invisible
 * characters, punctuation runs and look-alike letters of another script, put at every position of
 * a listed name, leave its decision as it was.
 */
const INSERTS = ['😀', '♥', '✈✈✈', 'ﷺ', '™', '①', '!!!', '.-,', '\u200b', '\u00ad', '\u{1F1FA}\u{1F1F8}', '👨‍👩‍👧'];

/** Cyrillic and Greek letters that look like Latin ones (chosen by eye, not taken from the matcher's table). */
const LOOK_ALIKES: Record<string, string> = {
  a: 'а', c: 'с', e: 'е', i: 'і', j: 'ј', o: 'о', p: 'р', s: 'ѕ', x: 'х', y: 'у',
  A: 'А', B: 'В', C: 'С', E: 'Е', H: 'Н', I: 'І', K: 'К', M: 'М', N: 'Ν', O: 'О', P: 'Р', T: 'Т', X: 'Х', Y: 'Υ', Z: 'Ζ',
};

describe.skipIf(!REAL_LISTS_DIR)('screening evasion by inserted characters', () => {
  let s: Snapshot;
  const decide = (name: string): Decision => screen(s, s.index.prepare(name), { name }, DEFAULT_THRESHOLDS, DEFAULT_RELATIONSHIP_SETTINGS).decision;
  beforeAll(async () => {
    s = await loadSnapshot(REAL_LISTS_DIR!);
  });

  it('answers the examples of the issue as it answers the plain name', () => {
    expect(decide('Vladimir Putin')).toBe('BLOCK');
    for (const q of ['Vladimir Putin 😀', 'Vladimir 😀 Putin', 'Vladimir Putin ♥', 'Vladimir Putin ✈✈✈', 'Vladimir Putin ﷺ', 'Vladimir Putin !!!', 'Vladimir Путин', 'Vladimir Рutin']) {
      expect(decide(q), q).toBe('BLOCK');
    }
  });

  it('keeps the decision of listed names with a symbol, emoji, invisible character or punctuation run at every position', () => {
    const changed: string[] = [];
    for (const { name } of sampleListed(s.entities, 12, 909)) {
      const expected = decide(name);
      expect(expected, name).not.toBe('CLEAR');
      const chars = [...name];
      for (let at = 0; at <= chars.length; at++) {
        for (const ins of INSERTS) {
          const q = [...chars.slice(0, at), ins, ...chars.slice(at)].join('');
          const got = decide(q);
          if (got !== expected) changed.push(`${JSON.stringify(q)}: ${got}, plain ${expected}`);
        }
      }
    }
    expect(changed).toEqual([]);
  });

  it('keeps the decision of listed names with a look-alike letter of another script at every position', () => {
    const changed: string[] = [];
    for (const { name } of sampleListed(s.entities, 40, 910)) {
      const expected = decide(name);
      const chars = [...name];
      chars.forEach((ch, at) => {
        const look = LOOK_ALIKES[ch];
        if (!look) return;
        const q = [...chars.slice(0, at), look, ...chars.slice(at + 1)].join('');
        if (decide(q) !== expected) changed.push(`${JSON.stringify(q)}: ${decide(q)}, plain ${expected}`);
      });
      // Every look-alike at once.
      const all = chars.map((ch) => LOOK_ALIKES[ch] ?? ch).join('');
      if (decide(all) !== expected) changed.push(`${JSON.stringify(all)}: ${decide(all)}, plain ${expected}`);
    }
    expect(changed).toEqual([]);
  });

  it('answers a name of 1,000 symbols, or of punctuation between 500 letters, as CLEAR', () => {
    expect(decide('😀'.repeat(1000))).toBe('CLEAR');
    expect(decide('♥✈™'.repeat(334))).toBe('CLEAR');
    expect(decide('a!'.repeat(500))).toBe('CLEAR');
  });
});
