import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { createWriteBehind } from '../infra/windows/lmdb/write-behind.js';

let db: RootDatabase | undefined;
let dir: string | undefined;
afterEach(async () => {
  await db?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});
const openDb = async (): Promise<RootDatabase> => {
  dir = await mkdtemp(path.join(tmpdir(), 'weir-write-behind-'));
  db = open({ path: path.join(dir, 'state.lmdb'), compression: false });
  return db;
};
/**
 * lmdb's side of the contract the write-behind relies on, with commits the test controls: every
 * write of a transaction is answered with the transaction's one promise, transactions commit in
 * order. lmdb's own commits are too quick for a test to hold one open while reading.
 */
function transactionsByHand() {
  const DELETED = Symbol('deleted');
  const committed = new Map<string, unknown>();
  const txns: { writes: [string, unknown][]; commit: () => void; done: Promise<boolean> }[] = [];
  let open: (typeof txns)[number] | undefined;
  const write = (key: unknown, value: unknown): Promise<boolean> => {
    if (!open) {
      let commit!: () => void;
      const done = new Promise<boolean>((resolve) => (commit = () => resolve(true)));
      open = { writes: [], commit, done };
      txns.push(open);
    }
    open.writes.push([JSON.stringify(key), value]);
    return open.done;
  };
  const db = {
    get: (key: unknown) => committed.get(JSON.stringify(key)),
    put: (key: unknown, value: unknown) => write(key, value),
    remove: (key: unknown) => write(key, DELETED),
    flushed: Promise.resolve(true),
  };
  return {
    db: db as unknown as RootDatabase,
    /** Later writes go in a new transaction, as they do after an event turn. */
    endTurn: () => (open = undefined),
    async commitOldest(): Promise<void> {
      const t = txns.shift()!;
      if (t === open) open = undefined;
      for (const [k, v] of t.writes) {
        if (v === DELETED) committed.delete(k);
        else committed.set(k, v);
      }
      t.commit();
      await nextTurn();
    },
  };
}

/** lmdb puts the writes of one event turn in one transaction: the next turn's go in a later one. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('lmdb write-behind', () => {
  it('reads the newest uncommitted write of a key across transactions in flight, then the committed tree', async () => {
    const store = await openDb();
    const writes = createWriteBehind(store);
    await store.put(['gone'], 'committed');
    const turns = 40;
    for (let i = 0; i < turns; i++) {
      writes.put(['k'], i);
      writes.put(['k', i], { turn: i });
      if (i === 10) writes.remove(['gone']);
      expect(writes.get(['k'])).toBe(i);
      expect(writes.get(['k', Math.floor(i / 2)])).toEqual({ turn: Math.floor(i / 2) });
      if (i >= 10) expect(writes.get(['gone'])).toBeUndefined();
      await nextTurn();
    }
    expect(writes.isPending(['k']) || store.get(['k']) === turns - 1).toBe(true);
    await writes.durable();
    expect(writes.isPending(['k'])).toBe(false);
    expect(writes.isPending(['k', 0])).toBe(false);
    expect(store.get(['k'])).toBe(turns - 1);
    expect(writes.get(['k'])).toBe(turns - 1);
    expect(store.get(['k', 7])).toEqual({ turn: 7 });
    expect(store.get(['gone'])).toBeUndefined();
    expect(writes.get(['gone'])).toBeUndefined();
  });

  it('keeps reading a later transaction\'s writes when an earlier one commits, and drops each at its own commit', async () => {
    const lmdb = transactionsByHand();
    const writes = createWriteBehind(lmdb.db);
    writes.put(['k'], 1);
    writes.put(['j'], 'a');
    lmdb.endTurn();
    writes.put(['k'], 2);
    writes.remove(['j']);
    lmdb.endTurn();
    writes.put(['x'], 3);
    expect([writes.get(['k']), writes.get(['j']), writes.get(['x'])]).toEqual([2, undefined, 3]);
    await lmdb.commitOldest();
    // The first transaction is in the tree (k = 1, j = 'a'); the second's writes still win.
    expect([writes.get(['k']), writes.get(['j']), writes.get(['x'])]).toEqual([2, undefined, 3]);
    expect([writes.isPending(['k']), writes.isPending(['j']), writes.isPending(['x'])]).toEqual([true, true, true]);
    await lmdb.commitOldest();
    expect([writes.isPending(['k']), writes.isPending(['j']), writes.isPending(['x'])]).toEqual([false, false, true]);
    expect([writes.get(['k']), writes.get(['j']), writes.get(['x'])]).toEqual([2, undefined, 3]);
    await lmdb.commitOldest();
    expect(writes.isPending(['x'])).toBe(false);
    await writes.durable();
  });

  it('lmdb answers the writes of one turn with one promise, and a later turn\'s with another (one layer per transaction)', async () => {
    const store = await openDb();
    const first = store.put(['a'], 1);
    expect(store.remove(['b'])).toBe(first);
    expect(store.put(['c'], 2)).toBe(first);
    await nextTurn();
    const second = store.put(['a'], 3);
    expect(second).not.toBe(first);
    await Promise.all([first, second]);
  });

  it('a removal then a put of one key in one turn reads as the put, before and after the commit', async () => {
    const store = await openDb();
    const writes = createWriteBehind(store);
    writes.put(['a'], 1);
    await writes.durable();
    writes.remove(['a']);
    expect(writes.get(['a'])).toBeUndefined();
    expect(writes.isPending(['a'])).toBe(true);
    writes.put(['a'], 2);
    expect(writes.get(['a'])).toBe(2);
    await writes.durable();
    expect(writes.isPending(['a'])).toBe(false);
    expect(store.get(['a'])).toBe(2);
  });
});
