import { describe, expect, it } from 'vitest';
import { canonical, foldName, nameTokens, rejoinedTokens, skeleton, withinOneEdit } from './normalize.js';

describe('nameTokens', () => {
  it.each([
    ['MILOSEVIC, Marija', ['milosevik', 'marija']],
    ['Müller-Lüdenscheidt', ['muler', 'ludenscheidt']],
    ["Sab'awi Ibrahim Hassan AL-TIKRITI", ['sabavi', 'ibrahim', 'hasan', 'tikriti']],
    ['Dr. Ayman al-Zawahiri', ['aiman', 'zavahiri']],
    ['Acme Trading Co., Ltd.', ['akme', 'trading']],
    ['Иванов Сергей', ['ivanov', 'sergei']],
    ['Ch’oe Ch’un Sik', ['choe', 'chun', 'sik']],
    ['LLC', ['lk']],
  ])('%s -> %j', (input, tokens) => {
    expect(nameTokens(input)).toEqual(tokens);
  });

  it('keeps CJK syllables apart', () => {
    expect(foldName('金正恩')).toBe('jin zheng en');
  });
});

describe('canonical', () => {
  it('spells transliteration variants one way', () => {
    for (const [a, b] of [['mokhammed', 'mohammed'], ['dzhamal', 'jamal'], ['djamal', 'jamal'], ['yuliya', 'iuliia'], ['qods', 'kods'], ['younous', 'yunus']]) {
      expect(canonical(a!)).toBe(canonical(b!));
    }
    expect(canonical('smith')).not.toBe(canonical('smyth2'));
  });
  it('recognises legal forms through a slip of the keyboard', () => {
    expect(nameTokens('Acme Trading COPMANY')).toEqual(nameTokens('Acme Trading Company'));
    expect(withinOneEdit('limited', 'limted')).toBe(true);
    expect(withinOneEdit('limited', 'lmtd')).toBe(false);
  });
});

describe('skeleton', () => {
  it('matches a vowel-less transliteration to the spelled-out name', () => {
    expect(skeleton(foldName('محمد'))).toBe(skeleton('mohammed'));
    expect(skeleton('hussein')).toBe(skeleton('husayn'));
    expect(skeleton('smith')).not.toBe(skeleton('jones'));
  });
});

describe('symbols, invisible characters and look-alike letters', () => {
  it('drops symbols, emoji and other numbers before transliteration, where any-ascii would make words of them', () => {
    for (const q of ['Vladimir Putin 😀', 'Vladimir 😀 Putin', 'Vladimir Putin ♥', 'Vladimir Putin ✈✈✈', 'Vladimir Putin ﷺ', 'Vladimir Putin ™ ①', '🇺🇸 Vladimir Putin']) {
      expect(nameTokens(q), q).toEqual(['vladimir', 'putin']);
    }
  });

  it('reads Latin look-alikes of another script inside a Latin word by look, whole words in that script by sound', () => {
    expect(foldName('Vladimir Рutin')).toBe('vladimir putin'); // Cyrillic Р in a Latin word
    expect(foldName('Vladimir Путин')).toBe('vladimir putin');
    expect(foldName('Рахор')).toBe('rakhor');
  });

  it('offers a second reading with glued breaks joined and look-alike words read by look', () => {
    const known = (t: string) => ['vladimir', 'putin', 'rahor'].includes(t);
    expect(rejoinedTokens('Vla!!!dimir Pu\u200btin', known)?.tokens).toEqual(['vladimir', 'putin']);
    expect(rejoinedTokens('Vladimir😀Putin', known)).toBeNull(); // `vladimirputin` is no known word
    expect(rejoinedTokens('ACME L.T.D', known)?.tokens).toEqual(['akme']);
    expect(rejoinedTokens('ВАНК', known)?.tokens).toEqual(['bahk']); // all Cyrillic, read by sound as `vank`
    expect(rejoinedTokens('Vladimir Putin', known)).toBeNull();
  });
});
