import type { Key, RootDatabase } from 'lmdb';
import { idDigest, type IdSlots } from '../event-ids.js';
import { KEYSPACES } from './keys.js';
import type { WriteBehind } from './write-behind.js';

/**
 * Remembered event ids of the LMDB window store, on the slot grid of event-ids.ts. A key per slot
 * and id made a new id (the common case) miss once per slot of the window: five lmdb gets for 24
 * hours, 29 % of a counters drain's CPU (issue 31). Here an id lives once per span of SPAN_SLOTS
 * slots, ['j', scope, slotMs, span, digest] -> slot * 2 + state (0 reserved, 1 applied), and an
 * entry whose slot is older than the window's first counts as absent, as on Redis: a lookup gets
 * one key while the window lies in one span and two while it straddles two (half the time for 24
 * hours, so 1.5 on average). Expiry stays a whole range per span (housekeeping.ts), due once the
 * newest id added to it is out of the window; the price is disk: a span lives up to SPAN_SLOTS - 1
 * slots longer than its ids count (ids are still counted for exactly the slot grid's window).
 *
 * Ids written by the earlier layout (['i', scope, slotMs, slot, digest] -> state, a slot's expiry in
 * ['m', ...]) are still found until housekeeping drops their slot: the slots that hold them are
 * read once at open (one key each) and searched only while in a lookup's window. Only this process
 * writes the store (its writer lock), so that list stays right, and nothing adds to it.
 */
const SPAN_SLOTS = 8;

/** An id found in the window: where it is stored, and how its state is written there. */
export interface FoundId {
  key: Key;
  state: number;
  /** The stored value for `state` at this key. */
  stored(state: number): number;
}

const digestOf = (id: string): string => idDigest(id).toString('base64url');
const spanOf = (slot: number): number => Math.floor(slot / SPAN_SLOTS);

export function createIdSet(db: RootDatabase, writes: WriteBehind) {
  /** Earlier-layout slots that still hold ids, by scope: [slotMs, slot]. */
  const legacy = new Map<string, [number, number][]>();
  for (const key of db.getKeys({ start: [KEYSPACES.legacyIdSlot], end: [KEYSPACES.legacyIdSlot, '\uffff'] })) {
    const [, scope, slotMs, slot] = key as [string, string, number, number];
    legacy.set(scope, [...(legacy.get(scope) ?? []), [slotMs, slot]]);
  }

  const findLegacy = (scope: string, digest: string, slots: IdSlots): FoundId | undefined => {
    for (const [slotMs, slot] of legacy.get(scope) ?? []) {
      if (slotMs !== slots.slotMs || slot < slots.first || slot > slots.last) continue;
      const key = [KEYSPACES.legacyId, scope, slotMs, slot, digest];
      const state = writes.get(key) as number | undefined;
      if (state !== undefined) return { key, state, stored: (s) => s };
    }
    return undefined;
  };

  const find = (scope: string, digest: string, slots: IdSlots): FoundId | undefined => {
    for (let span = spanOf(slots.last); span >= spanOf(slots.first); span--) {
      const key = [KEYSPACES.id, scope, slots.slotMs, span, digest];
      const value = writes.get(key) as number | undefined;
      if (value === undefined) continue;
      const slot = Math.floor(value / 2);
      if (slot >= slots.first) return { key, state: value % 2, stored: (s) => slot * 2 + s };
    }
    return legacy.size === 0 ? undefined : findLegacy(scope, digest, slots);
  };

  const add = (scope: string, digest: string, slots: IdSlots, state: number): void => {
    const span = spanOf(slots.last);
    writes.put([KEYSPACES.id, scope, slots.slotMs, span, digest], slots.last * 2 + state);
    const meta = [KEYSPACES.idSpan, scope, slots.slotMs, span];
    if (((writes.get(meta) as number | undefined) ?? 0) < slots.expireAt) writes.put(meta, slots.expireAt);
  };

  return {
    /** The state of `id` in the window of `slots` ('new' ids are added as `state`), within a call's body. */
    check(scope: string, id: string, slots: IdSlots, addAs: number): FoundId | undefined {
      const digest = digestOf(id);
      const found = find(scope, digest, slots);
      if (!found) add(scope, digest, slots, addAs);
      return found;
    },
    /** Finds `id` without adding it. */
    find: (scope: string, id: string, slots: IdSlots): FoundId | undefined => find(scope, digestOf(id), slots),
    /** Housekeeping dropped an earlier-layout slot: lookups stop searching it. */
    forgetLegacy(scope: string, slotMs: number, slot: number): void {
      const left = (legacy.get(scope) ?? []).filter(([ms, s]) => ms !== slotMs || s !== slot);
      if (left.length === 0) legacy.delete(scope);
      else legacy.set(scope, left);
    },
  };
}

export type IdSet = ReturnType<typeof createIdSet>;
