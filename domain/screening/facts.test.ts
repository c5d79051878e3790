import { describe, expect, it } from 'vitest';
import { countryCode, dobEffect, nationalityEffect, parseDob } from './facts.js';

describe('parseDob', () => {
  it.each([
    ['1965', '1965'],
    ['17 Feb 1960', '1960-02-17'],
    ['Feb 1960', '1960-02'],
    ['circa 1960', '1960'],
    ['1958 to 1960', '1958..1960'],
    ['00/00/1994', '1994'],
    ['09/12/2022', '2022-12-09'],
    ['1960-02-17', '1960-02-17'],
    ['sometime', null],
  ])('%s -> %s', (text, dob) => {
    expect(parseDob(text)).toBe(dob);
  });
});

describe('dobEffect', () => {
  it('raises on agreement, lowers on contradiction, ignores absence', () => {
    expect(dobEffect('1960-02-17', ['1960-02-17'])).toBeGreaterThan(dobEffect('1960-02-17', ['1960']));
    expect(dobEffect('1960-02-17', ['1960'])).toBeGreaterThan(0);
    expect(dobEffect('1960-02-17', ['1958..1961'])).toBeGreaterThan(0);
    expect(dobEffect('1960-02-17', ['1980'])).toBeLessThan(0);
    expect(dobEffect('1960-02-17', ['1961'])).toBe(0);
    expect(dobEffect(undefined, ['1980'])).toBe(0);
    expect(dobEffect('1960-02-17', [])).toBe(0);
  });
});

describe('countryCode / nationalityEffect', () => {
  it('recognises names, demonyms and codes as the lists write them', () => {
    expect(['Syria', 'Iran', "Democratic People's Republic of Korea", 'Russia', 'Palestinian', 'sy'].map(countryCode)).toEqual(['SY', 'IR', 'KP', 'RU', 'PS', 'SY']);
    expect(countryCode('Atlantis')).toBeNull();
  });
  it('helps on agreement and costs on a clear contradiction', () => {
    expect(nationalityEffect('SY', ['SY'])).toBeGreaterThan(0);
    expect(nationalityEffect('FR', ['SY'])).toBeLessThan(0);
    expect(nationalityEffect('FR', [])).toBe(0);
  });
});
