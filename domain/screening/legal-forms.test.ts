import { describe, expect, it } from 'vitest';
import { NameIndex } from './index.js';
import { nameTokens } from './normalize.js';

/** Issue 16: a legal form added, dropped, abbreviated, spelled out or transliterated changes nothing. */
describe('legal forms are weak tokens, in both directions', () => {
  it.each([
    ['Romashka Trading LLC', 'Romashka Trading'], // listed with the form, query without
    ['Romashka Trading', 'Romashka Trading LLC'], // and the reverse
    ['Romashka LLC', 'ООО Ромашка'],
    ['Romashka Trading LLC', 'Obshchestvo s Ogranichennoy Otvetstvennostyu Romashka Trading'],
    ['Volga Shipping JSC', 'Aktsionernoe Obshchestvo Volga Shipping'],
    ['Volga Shipping JSC', 'Volga Shipping PJSC'],
    ['Grupo Halcon S.A. de C.V.', 'Grupo Halcon'],
    ['Grupo Halcon', 'GRUPO HALCON S.A. DE C.V.'],
    ['Inversiones Bolivar Ltda.', 'Inversiones Bolivar Limitada'],
    ['Pars Tejarat Company', 'Sherkat Pars Tejarat'],
    ['Acme Industries Co., Ltd.', 'Acme Industries Company Limited'],
    ['Acme Industries GmbH', 'The Acme Industries'],
    ['Blue Star Sp. z o.o.', 'Blue Star'],
    ['Romashka LLC', 'O.O.O. Romashka'],
  ])('%s ~ %s', (listed, query) => {
    expect(nameTokens(query)).toEqual(nameTokens(listed));
  });

  it('keeps single letters that are initials, not a form', () => {
    expect(nameTokens('J A Smith')).toEqual(['j', 'a', 'smith']);
    expect(nameTokens('S A Rahman')).toEqual(['s', 'a', 'rahman']);
  });

  it('scores a listed company queried with another form as the same name', async () => {
    const index = await NameIndex.build([{ text: 'VOLGA SHIPPING JOINT STOCK COMPANY', ref: 0 }, { text: 'Volga Trading', ref: 1 }]);
    const [hit] = index.search(index.prepare('Volga Shipping OOO'));
    expect(hit?.ref).toBe(0);
    expect(hit?.alignment.score).toBe(1);
  });

  it('weighs a slip of a legal form like the commonest word', async () => {
    const common = Array.from({ length: 40 }, (_, i) => ({ text: `${String.fromCharCode(65 + (i % 26))}${i} Trading`, ref: 10 + i }));
    const index = await NameIndex.build([{ text: 'VOLGA SHIPPING JSC', ref: 0 }, { text: 'Kama Shipping', ref: 1 }, ...common]);
    const score = (q: string) => index.search(index.prepare(q)).find((h) => h.ref === 0)?.alignment.score ?? 0;
    expect(score('Volga Shipping JOSC')).toBeGreaterThan(0.85);
    expect(score('Volga Shipping JOSC')).toBeGreaterThan(score('Volga Shipping Qwzx') + 0.2); // an unknown word weighs like the rarest
  });
});
