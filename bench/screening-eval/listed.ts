import type { SanctionEntity } from '../../domain/screening/entity.js';
import { nameTokens } from '../../domain/screening/normalize.js';
import { readingOrder } from '../../domain/screening/reading-order.js';
import { rng } from '../../test/fixtures/sanctions/eval-set.js';

/** A listed name as a customer would type it, and the party it was taken from. */
export interface ListedName {
  name: string;
  entityId: string;
}

/**
 * `count` listed names of persons and organizations drawn with a fixed seed from the loaded lists:
 * Latin names with at least two identity tokens (one-word names are not what customers are called),
 * weak aliases left out (alone they are CLEAR by design).
 */
export function sampleListed(entities: readonly SanctionEntity[], count: number, seed: number): ListedName[] {
  const r = rng(seed);
  const out: ListedName[] = [];
  const seen = new Set<string>();
  for (let attempts = 0; out.length < count && attempts < count * 100; attempts++) {
    const e = entities[Math.floor(r() * entities.length)]!;
    if (e.type !== 'person' && e.type !== 'organization') continue;
    const latin = e.names.filter((n) => !n.weak && /^[\x20-\x7e]+$/.test(n.name));
    const pick = latin[Math.floor(r() * latin.length)];
    if (!pick || nameTokens(pick.name).length < 2 || seen.has(pick.name)) continue;
    seen.add(pick.name);
    out.push({ name: readingOrder(pick.name), entityId: e.id });
  }
  return out;
}
