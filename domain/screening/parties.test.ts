import { describe, expect, it } from 'vitest';
import type { SanctionEntity } from './entity.js';
import { buildSnapshot } from './snapshot.js';
import { DEFAULT_RELATIONSHIP_SETTINGS, DEFAULT_THRESHOLDS, screen } from './screen.js';

const entity = (id: string, source: string, names: string[], more: Partial<SanctionEntity> = {}): SanctionEntity => ({
  id,
  nativeId: id,
  source,
  listType: 'sanctions',
  type: 'person',
  names: names.map((name, i) => ({ name, kind: i === 0 ? 'primary' : 'aka' })),
  datesOfBirth: [],
  nationalities: [],
  addresses: [],
  programs: [],
  remarks: '',
  relations: [],
  sameAs: [],
  ...more,
});

/** Issue 16: one party on several lists is one match naming every list and id; the right party first. */
describe('parties listed on several lists', () => {
  const lists = [
    { list: 'a', entities: [entity('ofac-sdn-1', 'OFAC-SDN', ['KARIMOV, Rustam Alievich'], { datesOfBirth: ['1971-03-02'] }), entity('ofac-sdn-2', 'OFAC-SDN', ['KARIMOV, Rustam'], { datesOfBirth: ['1990'] })] },
    { list: 'b', entities: [entity('un-QDi.1', 'UN', ['Rustam Alievich KARIMOV'], { datesOfBirth: ['1971'] })] },
    { list: 'c', entities: [entity('uk-9', 'UK-OFSI', ['Rustam KARIMOV ALIEVICH'], { sameAs: ['un-QDi.1'] })] },
    { list: 'd', entities: [entity('us-csl-5', 'US-CSL-SDN', ['KARIMOV, Rustam Alievich'], { listType: 'export_control', datesOfBirth: ['1971-03-02'] })] },
  ];

  it('names every record of the party: same name and type, or a stated cross-reference', async () => {
    const s = await buildSnapshot(lists, 'v', 'now');
    const r = screen(s, s.index.prepare('Rustam Alievich Karimov'), { name: 'Rustam Alievich Karimov' }, DEFAULT_THRESHOLDS, DEFAULT_RELATIONSHIP_SETTINGS);
    expect(r.decision).toBe('BLOCK');
    expect(r.match!.listings.map((e) => e.id).sort()).toEqual(['ofac-sdn-1', 'uk-9', 'un-QDi.1', 'us-csl-5']);
    expect(r.match!.entity.listType).toBe('sanctions'); // a sanctions record speaks for the party at a tie
    // The namesake born in 1990 is another party, reported apart.
    expect(r.candidates.find((m) => m.entity.id === 'ofac-sdn-2')?.listings.map((e) => e.id)).toEqual(['ofac-sdn-2']);
  });

  it('puts the party whose date of birth agrees first', async () => {
    const s = await buildSnapshot(lists, 'v', 'now');
    const r = screen(s, s.index.prepare('Rustam Karimov'), { name: 'Rustam Karimov', dob: '1990-05-01' }, DEFAULT_THRESHOLDS, DEFAULT_RELATIONSHIP_SETTINGS);
    expect(r.match!.entity.id).toBe('ofac-sdn-2');
  });
});
