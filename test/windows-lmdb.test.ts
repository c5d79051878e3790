import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, type RootDatabase } from 'lmdb';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { idDigest, idSlots } from '../infra/windows/event-ids.js';
import { createLmdbWindowStore } from '../infra/windows/lmdb/index.js';
import type { ApplyRequest, EntityRef } from '../infra/windows/types.js';
import { windowStoreContract } from './contracts/windows.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-windows-lmdb-'));
  dirs.push(dir);
  return path.join(dir, 'windows', 'state.lmdb');
};

/** Every lmdb database this file's stores open, newest last (to count the reads of one). */
const opened = vi.hoisted(() => [] as RootDatabase[]);
vi.mock('lmdb', async (importOriginal) => {
  const lmdb = await importOriginal<typeof import('lmdb')>();
  const open = (...args: unknown[]): RootDatabase => {
    const db = (lmdb.open as (...a: unknown[]) => RootDatabase)(...args);
    opened.push(db);
    return db;
  };
  return { ...lmdb, open };
});

windowStoreContract('lmdb', async (opts) => createLmdbWindowStore({ dir: await tempDir(), ...opts }));

const entity: EntityRef = { scope: 'acme', id: 'u1' };
const event: Omit<ApplyRequest, 'once'> = {
  entity,
  updates: [
    { kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 },
    { kind: 'sum', series: 'amt', bucket: 1, delta: 0.1, floor: 0 },
  ],
};
const ONCE_TTL_MS = 3_600_000;
const counted = (i: number): ApplyRequest => ({ ...event, once: { id: `e${i}`, ttlMs: ONCE_TTL_MS } });
const readAll = (store: Awaited<ReturnType<typeof createLmdbWindowStore>>) =>
  store.read(entity, [{ kind: 'sum', series: 'n', floor: 0 }, { kind: 'sum', series: 'amt', floor: 0 }, { kind: 'max', series: 'seen' }]);

describe('lmdb window store: durability', () => {
  it('keeps series, event ids, leases and queues across a restart', async () => {
    const dir = await tempDir();
    const first = await createLmdbWindowStore({ dir });
    await first.apply([counted(1), counted(2), { entity, updates: [{ kind: 'max', series: 'seen', value: 99 }] }]);
    await first.reserveIds('acme', ['r1'], ONCE_TTL_MS);
    await first.claim('acme', 'lease', ['a'], 3_600_000);
    await first.schedule('acme', 'flush', [{ id: 'u1', dueAt: 10 }]);
    await first.close();

    const second = await createLmdbWindowStore({ dir });
    try {
      expect(await readAll(second)).toEqual([2, 0.2, 99]);
      expect(await second.apply([counted(2), counted(3)])).toEqual([false, true]);
      expect(await second.reserveIds('acme', ['r1', 'e1', 'r2'], ONCE_TTL_MS)).toEqual(['reserved', 'applied', 'new']);
      expect(await second.claim('acme', 'lease', ['a', 'b'], 3_600_000)).toEqual([false, true]);
      expect(await second.takeDue('acme', 'flush', 10, 10)).toEqual(['u1']);
    } finally {
      await second.close();
    }
  });

  it('answers writes with sync: false before lmdb commits them, later calls see them at once, synced() makes them durable', async () => {
    const dir = await tempDir();
    const first = await createLmdbWindowStore({ dir });
    // Before the store's first commit of this turn could run on lmdb's write thread: a call whose
    // body waited for the write lock answered only after an fsync.
    const nextTurn = new Promise<'next turn'>((resolve) => setImmediate(() => resolve('next turn')));
    const deferred = { sync: false };
    await expect(Promise.race([first.apply([counted(1), counted(1)], deferred), nextTurn])).resolves.toEqual([true, false]);
    await expect(Promise.race([first.claim('acme', 'lease', ['a', 'a'], 3_600_000, deferred), nextTurn])).resolves.toEqual([true, false]);
    await expect(Promise.race([readAll(first), nextTurn])).resolves.toEqual([1, 0.1, null]);
    expect(await first.apply([counted(1)], deferred)).toEqual([false]);
    await first.synced();
    await first.close();

    const second = await createLmdbWindowStore({ dir });
    try {
      expect(await readAll(second)).toEqual([1, 0.1, null]);
      expect(await second.apply([counted(1)])).toEqual([false]);
      expect(await second.claim('acme', 'lease', ['a'], 3_600_000)).toEqual([false]);
    } finally {
      await second.close();
    }
  });

  it('refuses a second store on the same files while the first is open', async () => {
    const dir = await tempDir();
    const first = await createLmdbWindowStore({ dir });
    try {
      await expect(createLmdbWindowStore({ dir })).rejects.toThrow(/in use by process/);
    } finally {
      await first.close();
    }
  });

  it('keeps one entry per event id, whether intake reserved it or not', async () => {
    const store = await createLmdbWindowStore({ dir: await tempDir() });
    try {
      const ids = Array.from({ length: 1_000 }, (_, i) => `id${i}`);
      await store.reserveIds('acme', ids.slice(0, 500), ONCE_TTL_MS);
      const applied = await store.apply(ids.map((id, i) => ({ entity: { scope: 'acme', id: `u${i % 7}` }, updates: [], once: { id, ttlMs: ONCE_TTL_MS } })));
      expect(applied.every(Boolean)).toBe(true);
      expect(store.countIds()).toBe(1_000);
    } finally {
      await store.close();
    }
  });

  it('counts every event exactly once when killed with SIGKILL mid-stream and redelivered', async () => {
    const dir = await tempDir();
    const acked = await applyUntilKilled(dir, 300);
    const store = await createLmdbWindowStore({ dir });
    try {
      const [n] = await readAll(store);
      expect(n).toBeGreaterThanOrEqual(acked);
      // Redelivery of everything the child was given, and more: each event counts once in all.
      const total = acked + 500;
      const redelivered = await store.apply(Array.from({ length: total }, (_, i) => counted(i)));
      expect(redelivered.slice(0, acked).every((applied) => !applied)).toBe(true);
      const [count, amount] = await readAll(store);
      expect(count).toBe(total);
      expect(amount).toBe(Number((total * 0.1).toPrecision(15)));
    } finally {
      await store.close();
    }
  });
});

describe('lmdb window store: housekeeping', () => {
  it('expires a store of a million ids in slices while answering other calls', async () => {
    const store = await createLmdbWindowStore({ dir: await tempDir(), housekeepingIntervalMs: 3_600_000 });
    try {
      const ids = 1_000_000;
      const ttlMs = 1_000;
      for (let i = 0; i < ids; i += 20_000) await store.reserveIds('bulk', Array.from({ length: 20_000 }, (_, k) => `old-${i + k}`), ttlMs);
      expect(store.countIds()).toBe(ids);
      await store.apply([{ entity, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }] }]);

      // Every slot has expired an hour from now: the pass must drop them all, and calls made while
      // it runs are answered before it ends.
      let swept = false;
      const sweeping = store.housekeep(Date.now() + 3_600_000).then((n) => {
        swept = true;
        return n;
      });
      const answered: boolean[] = [];
      while (!swept) {
        const [n] = await store.read(entity, [{ kind: 'sum', series: 'n', floor: 0 }]);
        expect(n).toBe(1);
        answered.push(swept);
        await store.apply([{ entity: { scope: 'other', id: `x${answered.length}` }, updates: [{ kind: 'max', series: 'seen', value: 1 }] }]);
      }
      expect(await sweeping).toBeGreaterThanOrEqual(ids);
      expect(answered.filter((s) => !s).length).toBeGreaterThan(10);
      expect(store.countIds()).toBe(0);
    } finally {
      await store.close();
    }
  }, 300_000);

  it('leaves alone an idle entity whose new write is not committed yet', async () => {
    const store = await createLmdbWindowStore({ dir: await tempDir(), idleTtlMs: 50, housekeepingIntervalMs: 3_600_000 });
    try {
      await store.apply([{ entity, updates: [{ kind: 'max', series: 'seen', value: 1 }] }]);
      await new Promise((r) => setTimeout(r, 80));
      // The committed entity is idle; the write that renews it is issued, not committed, when the
      // sweep reads the committed tree.
      await store.apply([{ entity, updates: [{ kind: 'max', series: 'seen', value: 2 }] }], { sync: false });
      expect(await store.housekeep(Date.now())).toBe(0);
      expect(await readAll(store)).toEqual([0, 0, 2]);
    } finally {
      await store.close();
    }
  });
});

describe('lmdb window store: entity records', () => {
  it('reads, updates and expires entities written in the object form before, and writes them as arrays', async () => {
    const dir = await tempDir();
    const key = ['e', entity.scope, entity.id];
    const idle = ['e', entity.scope, 'idle'];
    const raw = open({ path: dir, compression: false });
    await raw.put(key, { t: Date.now(), s: { n: [3, 1, 3], amt: [0.3, 1, 0.3] }, m: { seen: 7 } });
    await raw.put(idle, { t: 1, s: {}, m: { seen: 1 } });
    await raw.close();

    const store = await createLmdbWindowStore({ dir, housekeepingIntervalMs: 3_600_000 });
    try {
      expect(await readAll(store)).toEqual([3, 0.3, 7]);
      await store.apply([counted(1)]);
      expect(await readAll(store)).toEqual([4, 0.4, 7]);
      expect(await store.housekeep(Date.now())).toBe(1);
    } finally {
      await store.close();
    }
    const after = open({ path: dir, compression: false });
    try {
      expect(after.get(key)).toEqual([expect.any(Number), ['n', [4, 1, 4], 'amt', [0.4, 1, 0.4]], ['seen', 7]]);
      expect(after.get(idle)).toBeUndefined();
    } finally {
      await after.close();
    }
  });
});

describe('lmdb window store: event ids', () => {
  const DAY_MS = 86_400_000;
  const SLOT_MS = 6 * 3_600_000;
  const onceIn = (id: string): ApplyRequest => ({ ...event, once: { id, ttlMs: DAY_MS } });

  /** Runs `body` at `now` (Date only), counting the newest store's lmdb gets of event-id keys, either layout. */
  async function idGetsAt(now: number, body: () => Promise<unknown>): Promise<number> {
    const get = vi.spyOn(opened.at(-1)!, 'get');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    try {
      await body();
      return get.mock.calls.filter(([key]) => Array.isArray(key) && (key[0] === 'i' || key[0] === 'j')).length;
    } finally {
      vi.useRealTimers();
      get.mockRestore();
    }
  }

  // Slots of a 24-hour window: five from last - 4 to last; spans of eight slots from a multiple of eight.
  const oneSpan = (8 * 10_400 + 7) * SLOT_MS + 3_600_000;
  const twoSpans = (8 * 10_400 + 2) * SLOT_MS + 3_600_000;

  it('looks a new id up in one key while its window lies in one span of slots, two while it straddles two (not one a slot)', async () => {
    const store = await createLmdbWindowStore({ dir: await tempDir(), housekeepingIntervalMs: 3_600_000 });
    try {
      expect(await idGetsAt(oneSpan, () => store.apply([onceIn('a')]))).toBe(1);
      expect(await idGetsAt(oneSpan, () => store.reserveIds('acme', ['b'], DAY_MS))).toBe(1);
      expect(await idGetsAt(twoSpans, () => store.apply([onceIn('c')]))).toBe(2);
      // An id added four slots earlier, in the span before, is still found; one out of the window is new.
      let answers: unknown[] = [];
      await idGetsAt(twoSpans - 4 * SLOT_MS, () => store.reserveIds('acme', ['d', 'e'], DAY_MS));
      await idGetsAt(twoSpans - 5 * SLOT_MS, () => store.apply([onceIn('f')]));
      await idGetsAt(twoSpans, async () => (answers = await store.reserveIds('acme', ['d', 'f'], DAY_MS)));
      expect(answers).toEqual(['reserved', 'new']);
      await idGetsAt(twoSpans, async () => (answers = await store.apply([onceIn('d'), onceIn('d'), onceIn('e')])));
      expect(answers).toEqual([true, false, true]);
    } finally {
      await store.close();
    }
  });

  it('still finds ids stored by the earlier layout (a key per slot) until housekeeping drops their slot, then stops searching it', async () => {
    const dir = await tempDir();
    await (await createLmdbWindowStore({ dir })).close();
    const slots = idSlots(DAY_MS, oneSpan);
    const slot = slots.last - 1;
    const raw = open({ path: dir, compression: false });
    const digest = (id: string) => idDigest(id).toString('base64url');
    await raw.put(['i', 'acme', slots.slotMs, slot, digest('old-applied')], 1);
    await raw.put(['i', 'acme', slots.slotMs, slot, digest('old-reserved')], 0);
    await raw.put(['m', 'acme', slots.slotMs, slot], (slot + 1) * slots.slotMs + DAY_MS);
    await raw.close();

    const store = await createLmdbWindowStore({ dir, housekeepingIntervalMs: 3_600_000 });
    try {
      let answers: unknown[] = [];
      await idGetsAt(oneSpan, async () => (answers = await store.apply([onceIn('old-applied')])));
      expect(answers).toEqual([false]);
      await idGetsAt(oneSpan, async () => (answers = await store.reserveIds('acme', ['old-reserved', 'old-applied', 'fresh'], DAY_MS)));
      expect(answers).toEqual(['reserved', 'applied', 'new']);
      await idGetsAt(oneSpan, async () => (answers = await store.apply([onceIn('old-reserved'), onceIn('old-reserved')])));
      expect(answers).toEqual([true, false]);
      expect(store.countIds()).toBe(3);
      // While the earlier slot is in the window, a new id is looked for there too.
      expect(await idGetsAt(oneSpan, () => store.apply([onceIn('new-1')]))).toBe(2);

      expect(await store.housekeep((slot + 1) * slots.slotMs + DAY_MS)).toBe(2);
      expect(store.countIds()).toBe(2);
      expect(await idGetsAt(oneSpan, () => store.apply([onceIn('new-2')]))).toBe(1);
    } finally {
      await store.close();
    }
  });
});

describe('lmdb window store: holds', () => {
  it('sweeps lapsed holds and keeps live ones, which survive a reopen', async () => {
    const dir = await tempDir();
    let store = await createLmdbWindowStore({ dir, housekeepingIntervalMs: 3_600_000 });
    try {
      await store.hold('org', 'lock', 'short', { holder: 'a', token: 't1', ttlMs: 40 });
      const live = await store.hold('org', 'lock', 'long', { holder: 'b', token: 't2', ttlMs: 600_000 });
      await new Promise((r) => setTimeout(r, 80));
      expect(await store.housekeep(Date.now())).toBe(1);
      await store.close();
      store = await createLmdbWindowStore({ dir, housekeepingIntervalMs: 3_600_000 });
      expect(await store.readHold('org', 'lock', 'long')).toEqual(live.hold);
      expect(await store.readHold('org', 'lock', 'short')).toBeNull();
    } finally {
      await store.close();
    }
  });
});

describe('lmdb window store: queues of a large flush', () => {
  it('takes, schedules and unschedules thousands of ids across its small transactions, in order and exactly once', async () => {
    const store = await createLmdbWindowStore({ dir: await tempDir(), housekeepingIntervalMs: 3_600_000 });
    try {
      const n = 5_000;
      await store.schedule('org', 'dirty', Array.from({ length: n }, (_, i) => ({ id: `e${String(i).padStart(5, '0')}`, dueAt: i })));
      const taken = await store.takeDue('org', 'dirty', n, 4_321, { queue: 'lease', dueAt: 10, prefix: 'p:' });
      expect(taken).toEqual(Array.from({ length: 4_321 }, (_, i) => `e${String(i).padStart(5, '0')}`));
      expect(await store.takeDue('org', 'dirty', n, n)).toHaveLength(n - 4_321);
      await store.unschedule('org', 'lease', taken.slice(0, 4_000).map((id) => `p:${id}`));
      expect(await store.takeDue('org', 'lease', 10, n)).toEqual(taken.slice(4_000).map((id) => `p:${id}`));
    } finally {
      await store.close();
    }
  });
});

const storeModule = fileURLToPath(new URL('../infra/windows/lmdb/index.ts', import.meta.url));

/**
 * Runs a child process that applies counted(0), counted(1), ... in calls of 7, printing the
 * highest index after each call resolves, and kills it with SIGKILL once `atLeast` events were
 * acknowledged. Answers how many were acknowledged.
 */
async function applyUntilKilled(dir: string, atLeast: number): Promise<number> {
  const code = `
    const { createLmdbWindowStore } = await import(${JSON.stringify(storeModule)});
    const store = await createLmdbWindowStore({ dir: ${JSON.stringify(dir)}, housekeepingIntervalMs: 20 });
    const counted = (i) => ({ ...${JSON.stringify(event)}, once: { id: 'e' + i, ttlMs: ${ONCE_TTL_MS} } });
    for (let i = 0; ; i += 7) {
      await store.apply(Array.from({ length: 7 }, (_, k) => counted(i + k)));
      process.stdout.write(String(i + 7) + '\\n');
    }
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let acked = 0;
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      if (lines.length > 0) acked = Number(lines.at(-1));
      if (acked >= atLeast && !child.killed) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(acked) : reject(new Error(`child ended without SIGKILL (${signal})`))));
  });
}
