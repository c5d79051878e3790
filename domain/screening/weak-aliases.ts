import type { Parties } from './parties.js';
import type { SanctionEntity } from './entity.js';

/**
 * Keys (identity tokens, sorted) of the names each party's publishers mark weak. A name one
 * publisher marks weak is weak on every record of the party: OFAC's weak `MOHAMMED, Ali` of Ali
 * KONY is an ungraded alias on the US CSL's copy of his record and a `Good` one on the UN's. A
 * record's own primary name is never weak.
 */
export function weakKeysByParty(entities: readonly SanctionEntity[], keys: readonly (readonly string[])[], parties: Parties): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  entities.forEach((e, i) => {
    e.names.forEach((n, k) => {
      if (k === 0 || !n.weak || !keys[i]![k]) return;
      const party = parties.of[i]!;
      let set = out.get(party);
      if (!set) out.set(party, (set = new Set()));
      set.add(keys[i]![k]!);
    });
  });
  return out;
}
