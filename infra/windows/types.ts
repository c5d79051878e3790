import type { PartHealth } from '../health.js';
import type { ApplyRequest, EntityReads, EntityRef, SeriesRead, SeriesUpdate } from '../../domain/windows/series.js';

// The series vocabulary is the domain's (pure code computes the updates); the port speaks it.
export type { ApplyRequest, EntityReads, EntityRef, SeriesRead, SeriesUpdate };

/**
 * The window-state port: rolling per-entity series kept in Redis (real) or in LMDB on local disk
 * (embedded default; infra/windows/lmdb), plus an in-process twin for tests.
 *
 * The store knows nothing of time or windows: callers (pure code in domain/) turn timestamps into
 * integer bucket indexes and windows into a lowest live bucket. The store keeps, per entity and
 * series, a map bucket -> sum plus a running total, and evicts buckets below the floor a read or
 * update names. On one Redis server the adapter runs the requests of a call in a few scripts of
 * many entities each (redis/index.ts), since per-script cost dominates otherwise; on a Redis
 * Cluster, one script per hash slot.
 *
 * Event ids: one entry per event id and organization, shared by intake (`reserveIds`) and the
 * pipeline (`once`), kept in time slots (event-ids.ts) as 8 bytes of SHA-256 and a state
 * (reserved or applied). Intake reserves, then appends; the pipeline's once check and the counter
 * update are one atomic step and apply an id that is absent or reserved, so a crash between any
 * two steps, a client retry or a redelivery counts an event exactly once. On a Redis Cluster that
 * step is four idempotent ones, each in one hash slot, with the same outcome (redis/cluster-apply.ts).
 */

/**
 * What `reserveIds` found for an id: `new` (absent, now reserved by this call), `reserved` (reserved
 * before, not yet applied), `applied` (an `apply` with this once id counted it).
 */
export type IdState = 'new' | 'reserved' | 'applied';

/** A named hold (an edit lock): who holds it, the token it was taken with, when it lapses (epoch ms). */
export interface Hold {
  holder: string;
  token: string;
  expiresAt: number;
}

export interface Lease {
  queue: string;
  dueAt: number;
  prefix: string;
}

/**
 * Durability: every state-changing call resolves only once its effect is durable, unless asked
 * otherwise (WriteOptions) (embedded: its
 * LMDB transaction committed and flushed to disk; Redis: as durable as the server's persistence;
 * the in-process store of tests keeps nothing). A consumer may
 * therefore commit its offsets as soon as `apply` resolves; after a crash, redelivered events are
 * absorbed by their `once` ids, so effects stay exactly-once.
 * Floors of one series are expected not to decrease (they come from the clock): eviction is not
 * journaled, so a bucket evicted by a read may reappear after a restart until the next read evicts it.
 * Sums: integer counts are exact (to 2^53); sums with fractions carry no binary noise from step to
 * step (every store rounds each step with a fraction to 15 significant digits), so 0.1 + 0.2 reads 0.3.
 * Entities without an update for the store's idle TTL (default 100 days) disappear.
 */
/**
 * `sync: false` resolves a write once every later call sees it, before it is durable (on LMDB, before
 * it is even committed); the caller awaits `synced()` before it acknowledges anything that depends on it. A
 * request that must wait for two durable writes (the store's and the log's) then waits for both
 * at once rather than one after the other. Default: true.
 */
export interface WriteOptions {
  sync?: boolean;
}

/**
 * Where an apply's requests come from, when a consumer applies a batch of one log partition: its
 * topic and partition, and each request's offset (in offset order, as the batch holds them). A
 * store may use it to tell a redelivery or a zombie member's late batch from a new event without
 * a script (Redis on one server: redis/plain-claims.ts); the others ignore it.
 */
export interface ApplySource {
  topic: string;
  partition: number;
  offsets: number[];
}

export interface ApplyOptions extends WriteOptions {
  source?: ApplySource;
}

export interface WindowStore {
  readonly kind: 'redis' | 'lmdb' | 'memory';
  /** Applies each request atomically; answers per request whether it applied (false = seen before). */
  apply(requests: ApplyRequest[], options?: ApplyOptions): Promise<boolean[]>;
  /** Reads series of one entity; answers values in the order asked. */
  read(entity: EntityRef, reads: SeriesRead[]): Promise<(number | null)[]>;
  /**
   * Reads of several entities in one call, answered in the order asked, each as `read` answers it.
   * On Redis one script serves many entities (per hash slot on a cluster), where a `read` each
   * would pay a command and a script call per entity.
   */
  readMany(items: EntityReads[]): Promise<(number | null)[][]>;
  /**
   * Event-id idempotency at intake, in the same per-scope id set `apply`'s once ids use (one entry
   * per event id): answers each id's state and reserves the absent ones for ttlMs. Intake reserves
   * before it appends to the log and appends `new` and `reserved` ids alike: a reservation whose
   * append was lost (crash, failed send) is appended again by the retry, and the pipeline's once
   * check applies an event whose id is reserved but not applied, exactly once.
   */
  reserveIds(scope: string, ids: string[], ttlMs: number): Promise<IdState[]>;
  /** Drops reservations that no apply consumed yet (the append they guarded failed); applied ids stay. */
  unreserveIds(scope: string, ids: string[], ttlMs: number): Promise<void>;
  /**
   * Claims ids in a namespace for ttlMs without touching series (short leases, e.g. a
   * configuration write): answers per id whether this call claimed it (false = already claimed).
   */
  claim(scope: string, namespace: string, ids: string[], ttlMs: number, options?: WriteOptions): Promise<boolean[]>;
  /** Resolves once every write that resolved before this call is durable (after `sync: false` writes). */
  synced(): Promise<void>;
  /** Gives back claims, e.g. when the write they guarded failed. */
  release(scope: string, namespace: string, ids: string[]): Promise<void>;
  /**
   * One atomic compare-and-set on a named hold: takes it for `holder` with `token` when nobody
   * holds it (absent or lapsed), renews it (same token, lapsing ttlMs from now) when `holder`
   * holds it, and otherwise changes nothing. Answers the hold as it stands after the call and
   * whether `holder` holds it; however many processes race, one holder wins. Expiry follows the
   * store's clock (Redis: the server's), so every process agrees on it.
   */
  hold(scope: string, namespace: string, id: string, request: { holder: string; token: string; ttlMs: number }): Promise<{ won: boolean; hold: Hold }>;
  /** The hold as it stands, or null when nobody holds it. */
  readHold(scope: string, namespace: string, id: string): Promise<Hold | null>;
  /** Gives the hold up when `holder` holds it; answers whether it did. */
  dropHold(scope: string, namespace: string, id: string, holder: string): Promise<boolean>;
  /** Marks entities of a scope as due at `dueAt` (ms); keeps the earliest due time per entity. */
  schedule(scope: string, queue: string, entries: { id: string; dueAt: number }[]): Promise<void>;
  /**
   * Removes and answers the entities of a queue due at or before `now` (at most `limit`). With
   * `lease`, the same atomic step schedules `lease.prefix + id` for each taken id on `lease.queue`
   * at `lease.dueAt`, so work taken off a queue is never lost to a crash before it is recorded.
   */
  takeDue(scope: string, queue: string, now: number, limit: number, lease?: Lease): Promise<string[]>;
  /** Removes these ids from a queue, whenever they are due (e.g. leases whose work is done). */
  unschedule(scope: string, queue: string, ids: string[]): Promise<void>;
  /**
   * Stores opaque values by id in a namespace (e.g. the work a queued id stands for, which may be
   * far larger than an id can be); they stay until deleted.
   */
  putValues(scope: string, namespace: string, entries: { id: string; value: string }[]): Promise<void>;
  /** The values of these ids, null where there is none, in the order asked. */
  getValues(scope: string, namespace: string, ids: string[]): Promise<(string | null)[]>;
  deleteValues(scope: string, namespace: string, ids: string[]): Promise<void>;
  /** Removes everything stored for an entity (GDPR delete, retired state). */
  deleteEntity(entity: EntityRef): Promise<void>;
  /** Whether the store serves calls now (memory: not stopped by a journal error or closed; Redis: connected). */
  health(): PartHealth;
  /** Makes the state durable (embedded: snapshot to DATA_DIR; Redis: no-op) and releases resources. */
  close(): Promise<void>;
}
