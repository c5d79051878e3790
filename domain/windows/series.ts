/**
 * The vocabulary of rolling per-entity series: pure code (counters, rule aggregates, risk state)
 * computes these reads and updates; the window store (infra/windows) carries them out.
 */

/** Entity address: `scope` is the tenant (organization), `id` the entity within it. */
export interface EntityRef {
  scope: string;
  id: string;
}

export type SeriesUpdate =
  /** Adds `delta` to bucket `bucket` of a sum series (a count adds 1), unless bucket < floor. */
  | { kind: 'sum'; series: string; bucket: number; delta: number; floor: number }
  /** Keeps the larger of the stored value and `value` (last_seen as epoch ms). */
  | { kind: 'max'; series: string; value: number };

export type SeriesRead =
  /** Evicts buckets < floor, answers the sum of the rest (0 when empty). */
  | { kind: 'sum'; series: string; floor: number }
  /**
   * Evicts buckets < floor as `sum` does, answers the lowest bucket left, or null when none is. A
   * store may bound its search (Redis, a large hash): it then answers a bucket at or above floor and
   * not above the lowest one.
   */
  | { kind: 'lowest'; series: string; floor: number }
  /** Answers the stored maximum, or null. */
  | { kind: 'max'; series: string };

/** The reads of one entity in a `readMany` call. */
export interface EntityReads {
  entity: EntityRef;
  reads: SeriesRead[];
}

export interface ApplyRequest {
  entity: EntityRef;
  updates: SeriesUpdate[];
  /**
   * Idempotency: when set, the updates apply only if `id` was not applied before in the entity's
   * scope (organization) within `ttlMs`; checking the id, marking it applied and applying the
   * updates are one atomic step. An id that `reserveIds` reserved and nobody applied yet applies
   * (once). Ids are remembered per scope, not per entity: an event id re-sent with another entity
   * is the same event. deleteEntity keeps them (they guard against redelivery).
   */
  once?: { id: string; ttlMs: number };
}
