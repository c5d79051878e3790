import type { Key, RootDatabase } from 'lmdb';

/** A removal waiting for its commit. */
const REMOVED = Symbol('removed');

interface Pending {
  value: unknown;
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
 */
export function createWriteBehind(db: RootDatabase) {
  const pending = new Map<string, Pending>();
  let last: Promise<unknown> = Promise.resolve();
  let failure: unknown;

  const track = (name: string, entry: Pending, written: Promise<boolean>): void => {
    last = written;
    written.then(
      () => {
        if (pending.get(name) === entry) pending.delete(name);
      },
      (err: unknown) => {
        failure ??= err;
        if (pending.get(name) === entry) pending.delete(name);
      },
    );
  };

  return {
    get(key: Key): unknown {
      // Most reads come when nothing is pending (a flush, a read-only call): no key to name then.
      const p = pending.size === 0 ? undefined : pending.get(JSON.stringify(key));
      if (p === undefined) return db.get(key);
      return p.value === REMOVED ? undefined : p.value;
    },
    /** Whether a write of `key` is not committed yet (housekeeping leaves such keys alone). */
    isPending(key: Key): boolean {
      return pending.size !== 0 && pending.has(JSON.stringify(key));
    },
    put(key: Key, value: unknown): void {
      const name = JSON.stringify(key);
      const entry = { value };
      pending.set(name, entry);
      track(name, entry, db.put(key, value));
    },
    remove(key: Key): void {
      const name = JSON.stringify(key);
      const entry = { value: REMOVED };
      pending.set(name, entry);
      track(name, entry, db.remove(key));
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
