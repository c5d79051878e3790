import { describe, expect, it } from 'vitest';
import { extractRelations, takeName } from './relationships.js';

/** Remark excerpts as they appear in the real lists (catalogued in the shared data README). */
describe('extractRelations', () => {
  it.each([
    ['DOB 1965; daughter of Slobodan Milosevic.', 'family_member', 'stated', 'Slobodan Milosevic'],
    ['sister-in-law of Slobodan Milosevic.', 'family_member', 'stated', 'Slobodan Milosevic'],
    ["DOB 1964; Saddam Hussein al-Tikriti's eldest son; nationality Iraq.", 'family_member', 'stated', 'Saddam Hussein al-Tikriti'],
    ['DOB 1967; half-brother of Saddam Hussein al-Tikriti.', 'family_member', 'stated', 'Saddam Hussein al-Tikriti'],
    ['Gender Male; Linked To: NAJI PAS COMPANY.', 'linked_to', 'stated', 'NAJI PAS COMPANY'],
    ['DOB 1980; Associated with Islamic Movement of Uzbekistan; nationality Uzbekistan.', 'associate', 'inferred', 'Islamic Movement of Uzbekistan'],
    ['(Tradex Co. is a subsidiary of Tajco Company and operates from the same business address.).', 'owned_by', 'inferred', 'Tajco Company'],
    ['Brother of Abdul Ghani Baradar Abdul Ahmad Turk (TAi.024).', 'family_member', 'stated', 'Abdul Ghani Baradar Abdul Ahmad Turk'],
  ])('%s', (remark, type, confidence, target) => {
    expect(extractRelations(remark)).toContainEqual(expect.objectContaining({ type, confidence, targetNames: expect.arrayContaining([target]) }));
  });

  it('reads several Linked To clauses and keeps a name that ends in a period', () => {
    const r = extractRelations('Secondary sanctions risk; Linked To: KPD S.A.; Linked To: HIZBALLAH.');
    expect(r.map((x) => x.targetNames)).toEqual([['KPD S.A.', 'KPD S.A'], ['HIZBALLAH.', 'HIZBALLAH']]);
    expect(extractRelations('Linked To: ISLAMIC REVOLUTIONARY GUARD CORPS (IRGC)-QODS FORCE; Linked To: HIZBALLAH.')).toHaveLength(2);
  });

  it.each([
    'Transactions Prohibited For Persons Owned or Controlled By U.S. Financial Institutions: North Korea Sanctions Regulations section 510.214',
    'Financial institutions and other persons should be aware that dealings associated with this name are prohibited',
  ])('ignores boilerplate: %s', (remark) => {
    expect(extractRelations(remark)).toEqual([]);
  });

  it('keeps organisation names that contain kinship words as link targets, not kinship', () => {
    for (const name of ['THIEVES-IN-LAW', 'THE SISTER TRUST', 'GERTLER FAMILY FOUNDATION']) {
      const r = extractRelations(`DOB 1960; Linked To: ${name}.`);
      expect(r).toEqual([expect.objectContaining({ type: 'linked_to', targetNames: [`${name}.`, name] })]);
    }
  });

  it('records the UN reference given next to a name', () => {
    expect(extractRelations('Brother of Abdul Ghani Baradar Abdul Ahmad Turk (TAi.024).')[0]!.targetRef).toBe('TAi.024');
  });
});

describe('takeName', () => {
  it.each([
    ['Dalkos LLC by receiving a material benefit', 'Dalkos LLC'],
    ['President Bashar Al-Assad', 'Bashar Al-Assad'],
    ['Olga STEPANOVA at the time of the serious corruption', 'Olga STEPANOVA'],
    ['Mr', null],
    ['Rami', null],
    ['HIZBALLAH', 'HIZBALLAH'],
  ])('%s -> %s', (text, name) => {
    expect(takeName(text)).toBe(name);
  });
});
