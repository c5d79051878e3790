import type { SanctionEntity } from './entity.js';

/**
 * One party listed on several lists: records joined when a publisher says they are the same (the
 * UK list's UN reference, the CSL's OFAC entity number), or when they have the same type and
 * either the same primary name (in identity tokens, any order) and, for persons, no date of birth
 * that sets them apart, or any same name of two words or more and, for persons, a year of birth in
 * common (`GADDAFI, Saif Al-Arab` and `SAIF AL-ARAB QADHAFI` share an alias and 1982). A screen reports one match per party, naming every list and id that holds it.
 */
export class Parties {
  /** Party of each entity: the index of its first member. */
  readonly of: Int32Array;
  private readonly members = new Map<number, number[]>();

  constructor(entities: readonly SanctionEntity[], primaryKeys: readonly string[], nameKeys: readonly string[][], byId: ReadonlyMap<string, number>) {
    const parent = Int32Array.from(entities, (_, i) => i);
    const find = (i: number): number => {
      while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
      return i;
    };
    const join = (a: number, b: number) => {
      const ra = find(a);
      const rb = find(b);
      if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
    };
    const byName = new Map<string, number[]>();
    const byAlias = new Map<string, number[]>();
    entities.forEach((e, i) => {
      for (const key of nameKeys[i] ?? []) {
        if (!key.includes(' ')) continue;
        const named = `${e.type}\0${key}`;
        const same = byAlias.get(named);
        if (!same) byAlias.set(named, [i]);
        else if (same.length < MAX_NAMESAKES) {
          for (const j of same) if (e.type !== 'person' || (e.datesOfBirth.length > 0 && entities[j]!.datesOfBirth.length > 0 && birthYearsAgree(e, entities[j]!))) join(i, j);
          same.push(i);
        }
      }
      for (const id of e.sameAs) {
        const j = byId.get(id);
        if (j !== undefined) join(i, j);
      }
      const key = primaryKeys[i];
      if (!key) return;
      const named = `${e.type}\0${key}`;
      const same = byName.get(named);
      if (!same) return void byName.set(named, [i]);
      for (const j of same) if (e.type !== 'person' || birthYearsAgree(e, entities[j]!)) join(i, j);
      same.push(i);
    });
    this.of = Int32Array.from(entities, (_, i) => find(i));
    this.of.forEach((p, i) => {
      if (p === i) return;
      const list = this.members.get(p);
      if (list) list.push(i);
      else this.members.set(p, [p, i]);
    });
  }

  /** Every entity of the party of `entity`, the first listed first. */
  membersOf(entity: number): readonly number[] {
    return this.members.get(this.of[entity]!) ?? [entity];
  }
}

/** A name held by more records than this is a common name, not a party (the lists repeat few names so often). */
const MAX_NAMESAKES = 8;

/** Two persons' dates of birth leave them the same person: either has none, or they share a year. */
function birthYearsAgree(a: SanctionEntity, b: SanctionEntity): boolean {
  if (a.datesOfBirth.length === 0 || b.datesOfBirth.length === 0) return true;
  const years = (e: SanctionEntity) =>
    e.datesOfBirth.flatMap((d) => {
      const [from, to] = d.split('..').map((y) => Number(y.slice(0, 4)));
      return Array.from({ length: Math.min(20, (to ?? from!) - from! + 1) }, (_, k) => from! + k);
    });
  const ya = new Set(years(a));
  return years(b).some((y) => ya.has(y));
}
