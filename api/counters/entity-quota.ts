import { lru } from 'tiny-lru';
import type { EntityRef, WindowStore } from '../../infra/windows/types.js';

const DAY_MS = 86_400_000;
/** An entity counts for this long after it was first seen (then, if still active, anew). */
const COUNTED_DAYS = 100;
const NAMESPACE = 'quota-entities';
const SERIES = 'quota_entities';
/** Entity ids are never empty, so this one holds the count without meeting a real entity. */
const counterOf = (orgId: string): EntityRef => ({ scope: orgId, id: '' });
/**
 * Entities this process claimed lately, not claimed again: a claim lasts COUNTED_DAYS, far longer
 * than an hour, and an entity's events recur, so most of a batch's claims were answered "held"
 * (a Redis SET NX and its key an event). About 190 B an entry (measured with
 * 30-character ids); at most 100,000 (19 MB).
 */
const RECENT_ENTITIES = 100_000;
const RECENT_MS = 3_600_000;

/**
 * Entities per organization (QUOTA_ENTITIES_PER_ORG), kept in the window store so every API
 * process counts alike: an entity is claimed for COUNTED_DAYS when first seen and added to a sum
 * of day buckets over the same span, so the sum is the number of live claims. Checked at HTTP
 * intake; concurrent requests may pass the limit by the entities they bring at once.
 */
export function createEntityQuota(windows: WindowStore, limit: number) {
  const recent = lru<true>(RECENT_ENTITIES, RECENT_MS);
  return {
    limit,
    /** Claims the organization's new entities among `entityIds`; answers those beyond the limit (not claimed). */
    async refused(orgId: string, entityIds: string[], now: number): Promise<Set<string>> {
      const ids = [...new Set(entityIds)].filter((id) => recent.get(`${orgId}\0${id}`) === undefined);
      if (ids.length === 0) return new Set();
      const claimed = await windows.claim(orgId, NAMESPACE, ids, COUNTED_DAYS * DAY_MS);
      const fresh = ids.filter((_, i) => claimed[i]);
      const counted = (held: string[]) => held.forEach((id) => recent.set(`${orgId}\0${id}`, true));
      counted(ids.filter((_, i) => !claimed[i]));
      if (fresh.length === 0) return new Set();
      const day = Math.floor(now / DAY_MS);
      const floor = day - COUNTED_DAYS + 1;
      const [count] = await windows.read(counterOf(orgId), [{ kind: 'sum', series: SERIES, floor }]);
      const room = Math.max(0, limit - (count ?? 0));
      const refused = fresh.slice(room);
      if (refused.length > 0) await windows.release(orgId, NAMESPACE, refused);
      if (room > 0) await windows.apply([{ entity: counterOf(orgId), updates: [{ kind: 'sum', series: SERIES, bucket: day, delta: Math.min(room, fresh.length), floor }] }]);
      counted(fresh.slice(0, room));
      return new Set(refused);
    },
  };
}
