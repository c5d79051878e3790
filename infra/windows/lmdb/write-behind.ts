import type { Key, RootDatabase } from 'lmdb';

/** A removal waiting for its commit. */
const REMOVED = Symbol('removed');

/** A write waiting for its commit, chained to the layer's other writes whose key ends alike. */
interface Pending {
  key: Key;
  value: unknown;
  next: Pending | undefined;
}

/**
 * The writes of one lmdb transaction until it commits, by the last part of their key (an event id's
 * digest, an entity or queued id, a slot): found without naming the whole key. Naming it with
 * JSON.stringify on every read and write was the store's largest own cost in a counters drain
 * (issue 31: 12-17 of 100 µs an event), and nearly every read finds nothing.
 */
type Layer = Map<unknown, Pending>;

/** The store's keys are arrays of strings and numbers (keys.ts); a part of one is compared by value. */
const lastPart = (key: Key): unknown => (Array.isArray(key) ? key[key.length - 1] : key);

function sameKey(a: Key, b: Key): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function find(layer: Layer, part: unknown, key: Key): Pending | undefined {
  for (let p = layer.get(part); p; p = p.next) if (sameKey(p.key, key)) return p;
  return undefined;
}

/**
 * The LMDB window store's writes, issued as lmdb's plain `put` and `remove` calls and readable at
 * once. lmdb runs a transaction callback only when its write lock is free, and with overlapping
 * sync a commit holds that lock until the previous commit's fsync is done: a call whose body ran in
 * `db.transaction` waited for one or two fsyncs before its body even started (10-50 ms under a
 * loaded disk, the risk check's tail). Here a call's body runs at once on the event loop: reads see
 * the committed tree overlaid with the writes not yet committed, in the order they were issued, and
 * lmdb executes those writes in that order, all the writes of one event turn in one transaction
 * (its `eventTurnBatching`), so a body is as atomic as a transaction. Since every write goes through
 * here, no body can read a value that an earlier, uncommitted write changed.
 *
 * The overlay is one layer per transaction, newest last: lmdb answers every unconditional write of a
 * transaction with the same promise (and a new one for the next transaction), so a layer costs one
 * callback and is dropped whole at its commit. (A map of all pending keys with a callback per write
 * held two closures a write and rehashed its table as it filled and emptied, tables that a busy store
 * made large enough for V8's old generation.)
 */
export function createWriteBehind(db: RootDatabase) {
  const layers: Layer[] = [];
  let last: Promise<unknown> = Promise.resolve();
  let top: Layer | undefined;
  let failure: unknown;

  const drop = (layer: Layer): void => {
    layers.splice(layers.indexOf(layer), 1);
    if (top === layer) top = undefined;
  };

  const record = (key: Key, value: unknown, written: Promise<boolean>): void => {
    if (written !== last || top === undefined) {
      last = written;
      const layer: Layer = new Map();
      layers.push(layer);
      top = layer;
      written.then(
        () => drop(layer),
        (err: unknown) => {
          failure ??= err;
          drop(layer);
        },
      );
    }
    const part = lastPart(key);
    const same = find(top, part, key);
    if (same) same.value = value;
    else top.set(part, { key, value, next: top.get(part) });
  };

  /** The newest uncommitted write of `key`: its value, REMOVED, or undefined when there is none (no value is undefined). */
  const pendingOf = (key: Key): unknown => {
    const part = lastPart(key);
    for (let i = layers.length - 1; i >= 0; i--) {
      const p = find(layers[i]!, part, key);
      if (p) return p.value;
    }
    return undefined;
  };

  return {
    get(key: Key): unknown {
      // Most reads come when nothing is pending (a flush, a read-only call): no layer to search then.
      const p = layers.length === 0 ? undefined : pendingOf(key);
      if (p === undefined) return db.get(key);
      return p === REMOVED ? undefined : p;
    },
    /** Whether a write of `key` is not committed yet (housekeeping leaves such keys alone). */
    isPending(key: Key): boolean {
      return layers.length !== 0 && pendingOf(key) !== undefined;
    },
    put(key: Key, value: unknown): void {
      record(key, value, db.put(key, value));
    },
    remove(key: Key): void {
      record(key, REMOVED, db.remove(key));
    },
    /** Resolves once every write issued so far is committed and on disk; rejects if a commit failed. */
    async durable(): Promise<void> {
      await last;
      await db.flushed;
      if (failure !== undefined) throw failure;
    },
    /** The first failed commit: its writes are lost, so the store reports itself down. */
    get failure(): unknown {
      return failure;
    },
  };
}

export type WriteBehind = ReturnType<typeof createWriteBehind>;
