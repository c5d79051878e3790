import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApplyRequest, EntityRef, SeriesUpdate, WindowStore } from '../../infra/windows/types.js';

/**
 * The behaviour every WindowStore must show. `makeStore` answers a fresh, empty store; options
 * it is given override the store's defaults.
 */
export type MakeWindowStore = (opts?: { idleTtlMs?: number }) => Promise<WindowStore>;

const sum = (series: string, bucket: number, delta: number, floor = 0): SeriesUpdate => ({ kind: 'sum', series, bucket, delta, floor });
const max = (series: string, value: number): SeriesUpdate => ({ kind: 'max', series, value });

export function windowStoreContract(name: string, makeStore: MakeWindowStore): void {
  describe(`WindowStore contract: ${name}`, () => {
    let store: WindowStore;
    let scope: string;
    const ent = (id: string): EntityRef => ({ scope, id });
    const readSum = async (id: string, series: string, floor = 0): Promise<number | null> =>
      (await store.read(ent(id), [{ kind: 'sum', series, floor }]))[0]!;
    const put = (id: string, ...updates: SeriesUpdate[]): Promise<boolean[]> => store.apply([{ entity: ent(id), updates }]);
    const readLowest = async (id: string, series: string, floor = 0): Promise<number | null> =>
      (await store.read(ent(id), [{ kind: 'lowest', series, floor }]))[0]!;

    beforeEach(async () => {
      store = await makeStore();
      scope = `org-${randomUUID()}`;
    });
    afterEach(async () => {
      await store.close();
    });

    describe('sum series', () => {
      it('adds counts and amounts per bucket and answers the total of the live buckets', async () => {
        await put('u1', sum('n', 10, 1), sum('amt', 10, 25.5));
        await put('u1', sum('n', 11, 1), sum('amt', 11, 4.25));
        await put('u1', sum('n', 11, 1), sum('amt', 11, 0.25));
        expect(await readSum('u1', 'n')).toBe(3);
        expect(await readSum('u1', 'amt')).toBe(30);
        expect(await readSum('u1', 'n', 11)).toBe(2);
        expect(await readSum('u1', 'amt', 11)).toBe(4.5);
      });

      it('keeps decimal sums free of binary noise and integer counts exact', async () => {
        await put('u1', sum('amt', 1, 0.1), sum('amt', 2, 0.2), sum('big', 1, 2 ** 40), sum('big', 2, 3));
        expect(await readSum('u1', 'amt')).toBe(0.3);
        expect(await readSum('u1', 'big')).toBe(2 ** 40 + 3);
        await put('u1', sum('amt', 3, -0.1));
        expect(await readSum('u1', 'amt')).toBe(0.2);
      });

      it('adds whole deltas exactly before and after fractional ones', async () => {
        await put('u1', sum('amt', 1, 100), sum('amt', 1, 0.5), sum('amt', 1, 2), sum('amt', 2, 3));
        expect(await readSum('u1', 'amt')).toBe(105.5);
        expect(await readSum('u1', 'amt', 2)).toBe(3);
        await put('u1', sum('big', 1, 1e9), sum('big', 2, 0.25), sum('big', 2, -1e9), sum('big', 3, 7));
        expect(await readSum('u1', 'big')).toBe(7.25);
        expect(await readSum('u1', 'big', 2)).toBe(7.25 - 1e9);
      });

      it('answers 0 for a series or entity never written', async () => {
        await put('u1', sum('n', 1, 1));
        expect(await readSum('u1', 'other')).toBe(0);
        expect(await readSum('nobody', 'n')).toBe(0);
      });

      it('evicts buckets below the floor a read names, for good', async () => {
        for (let b = 1; b <= 5; b++) await put('u1', sum('amt', b, b * 10));
        expect(await readSum('u1', 'amt', 3)).toBe(30 + 40 + 50);
        expect(await readSum('u1', 'amt', 0)).toBe(30 + 40 + 50);
      });

      it('evicts below the floor an update names, too', async () => {
        await put('u1', sum('n', 1, 1), sum('n', 2, 1));
        await put('u1', sum('n', 9, 1, 2));
        expect(await readSum('u1', 'n', 0)).toBe(2);
      });

      it('ignores updates to buckets below their floor', async () => {
        await put('u1', sum('n', 10, 1, 5));
        expect(await put('u1', sum('n', 4, 1, 5))).toEqual([true]);
        expect(await readSum('u1', 'n', 0)).toBe(1);
      });

      it('counts late updates that are still within the floor', async () => {
        await put('u1', sum('n', 10, 1, 5));
        await put('u1', sum('n', 6, 1, 5));
        expect(await readSum('u1', 'n', 5)).toBe(2);
        expect(await readSum('u1', 'n', 7)).toBe(1);
      });

      it('evicts across a long gap, keeping the bucket at the floor', async () => {
        await put('u1', sum('amt', 100, 0.7), sum('amt', 101, 0.1), sum('amt', 100_000, 1.25));
        await put('u1', sum('other', 100, 5));
        expect(await readSum('u1', 'amt', 100_000)).toBe(1.25);
        expect(await readSum('u1', 'amt', 200_000)).toBe(0);
        await put('u1', sum('amt', 200_001, 2.5, 200_000));
        expect(await readSum('u1', 'amt', 200_000)).toBe(2.5);
        expect(await readSum('u1', 'other', 0)).toBe(5);
      });

      it('handles negative deltas (refunds) in totals and eviction', async () => {
        await put('u1', sum('amt', 1, 10), sum('amt', 2, -3), sum('amt', 3, 1.5));
        expect(await readSum('u1', 'amt')).toBe(8.5);
        expect(await readSum('u1', 'amt', 3)).toBe(1.5);
      });

      it('keeps each series of an entity apart', async () => {
        await put('u1', sum('a', 1, 1), sum('b', 1, 7), sum('a', 2, 1));
        expect(await store.read(ent('u1'), [{ kind: 'sum', series: 'b', floor: 0 }, { kind: 'sum', series: 'a', floor: 2 }])).toEqual([7, 1]);
      });
      it('matches a reference model over random sequences of updates and reads', async () => {
        // Buckets and floors on a coarse grid, so they meet often; spans past 64 reach the stores' scan path.
        const grid = fc.integer({ min: 0, max: 20 }).map((k) => k * 10);
        const step = fc.oneof(
          fc.record({ op: fc.constant('add' as const), bucket: grid, delta: fc.integer({ min: -50, max: 1_000 }), floor: grid }),
          fc.record({ op: fc.constant('read' as const), floor: grid }),
        );
        let run = 0;
        await fc.assert(
          fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
            const id = `model-${run++}`;
            const model = new Map<number, number>();
            const evict = (floor: number): void => {
              for (const b of [...model.keys()]) if (b < floor) model.delete(b);
            };
            for (const s of steps) {
              evict(s.floor);
              if (s.op === 'add') {
                if (s.bucket >= s.floor) model.set(s.bucket, (model.get(s.bucket) ?? 0) + s.delta);
                await put(id, sum('x', s.bucket, s.delta, s.floor));
              } else {
                expect(await readSum(id, 'x', s.floor)).toBe([...model.values()].reduce((a, b) => a + b, 0));
                expect(await readLowest(id, 'x', s.floor)).toBe(model.size === 0 ? null : Math.min(...model.keys()));
              }
            }
            expect(await readSum(id, 'x', 0)).toBe([...model.values()].reduce((a, b) => a + b, 0));
          }),
          { numRuns: 150 },
        );
      });
    });

    describe('lowest live bucket', () => {
      it('answers the lowest bucket at or above the floor, evicting those below, or null', async () => {
        await put('u1', sum('amt', 100, 1), sum('amt', 170, 2), sum('amt', 900, 3), sum('am', 5, 1), sum('amtx', 1, 1));
        expect(await readLowest('u1', 'amt')).toBe(100);
        // Past a gap (the stores' bound on live buckets is then the floor, below the lowest bucket).
        expect(await readLowest('u1', 'amt', 101)).toBe(170);
        expect(await readLowest('u1', 'amt', 101)).toBe(170);
        expect(await readLowest('u1', 'amt', 300)).toBe(900);
        expect(await readSum('u1', 'amt', 0)).toBe(3);
        expect(await readLowest('u1', 'amt', 901)).toBeNull();
        expect(await readLowest('u1', 'amt', 0)).toBeNull();
        expect(await readLowest('u1', 'none', 0)).toBeNull();
        expect(await readLowest('u2', 'amt', 0)).toBeNull();
        expect(await store.read(ent('u1'), [{ kind: 'lowest', series: 'am', floor: 0 }, { kind: 'sum', series: 'amtx', floor: 0 }, { kind: 'lowest', series: 'amtx', floor: 0 }])).toEqual([5, 1, 1]);
      });

      it('answers several lowest reads of one entity in one call, each after its own eviction', async () => {
        await put('u1', sum('a', 1, 1), sum('a', 4, 1), sum('b', 2, 1), sum('b', 6, 1));
        const lowest = (series: string, floor: number) => ({ kind: 'lowest' as const, series, floor });
        expect(await store.read(ent('u1'), [lowest('a', 0), lowest('b', 3), lowest('a', 2), lowest('b', 7)])).toEqual([1, 6, 4, null]);
        expect(await store.read(ent('u1'), [{ kind: 'sum', series: 'a', floor: 0 }, lowest('a', 0)])).toEqual([1, 4]);
      });

      it('answers in readMany as in read', async () => {
        await put('u1', sum('n', 7, 1), sum('n', 9, 1));
        await put('u2', max('seen', 1));
        const reads = [{ kind: 'lowest' as const, series: 'n', floor: 8 }];
        expect(await store.readMany([{ entity: ent('u1'), reads }, { entity: ent('u2'), reads }, { entity: ent('u3'), reads }])).toEqual([[9], [null], [null]]);
      });
    });

    describe('max series', () => {
      it('keeps the largest value and answers null when never set', async () => {
        await put('u1', max('seen', 1_700_000_000_500));
        await put('u1', max('seen', 1_700_000_000_100));
        expect(await store.read(ent('u1'), [{ kind: 'max', series: 'seen' }, { kind: 'max', series: 'none' }])).toEqual([1_700_000_000_500, null]);
        await put('u1', max('seen', 1_700_000_000_900));
        expect(await store.read(ent('u1'), [{ kind: 'max', series: 'seen' }])).toEqual([1_700_000_000_900]);
      });

      it('answers reads of mixed kinds in the order asked', async () => {
        await put('u1', max('seen', 42), sum('n', 1, 3));
        expect(await store.read(ent('u1'), [{ kind: 'max', series: 'seen' }, { kind: 'sum', series: 'n', floor: 0 }, { kind: 'max', series: 'x' }])).toEqual([42, 3, null]);
      });
    });

    describe('readMany', () => {
      it('answers the reads of several entities in the order asked, each as read answers it', async () => {
        await put('u1', max('seen', 42), sum('n', 1, 3), sum('n', 5, 4));
        await put('u2', sum('n', 2, 7));
        const items = [
          { entity: ent('u2'), reads: [{ kind: 'sum' as const, series: 'n', floor: 0 }, { kind: 'max' as const, series: 'seen' }] },
          { entity: ent('never'), reads: [{ kind: 'max' as const, series: 'seen' }, { kind: 'sum' as const, series: 'n', floor: 0 }] },
          { entity: ent('u1'), reads: [] },
          { entity: ent('u1'), reads: [{ kind: 'max' as const, series: 'seen' }, { kind: 'sum' as const, series: 'n', floor: 2 }] },
          { entity: { scope: `${scope}-other`, id: 'u1' }, reads: [{ kind: 'sum' as const, series: 'n', floor: 0 }] },
        ];
        expect(await store.readMany(items)).toEqual([[7, null], [null, 0], [], [42, 4], [0]]);
        // The floor of 2 evicted u1's bucket 1 for good, as read does.
        expect(await readSum('u1', 'n')).toBe(4);
        expect(await store.readMany([])).toEqual([]);
      });

      it('reads more entities than one script serves, matching read for each', async () => {
        await store.apply(Array.from({ length: 400 }, (_, i) => ({ entity: ent(`e${i}`), updates: [sum('n', 1, i), max('seen', i)] })));
        const reads = [{ kind: 'sum' as const, series: 'n', floor: 0 }, { kind: 'max' as const, series: 'seen' }, { kind: 'max' as const, series: 'none' }];
        const many = await store.readMany(Array.from({ length: 500 }, (_, i) => ({ entity: ent(`e${i}`), reads })));
        expect(many).toEqual(Array.from({ length: 500 }, (_, i) => (i < 400 ? [i, i, null] : [0, null, null])));
      });

      it('rejects a bad read before answering any', async () => {
        await expect(store.readMany([{ entity: ent('u1'), reads: [] }, { entity: ent('u2'), reads: [{ kind: 'sum', series: 'n', floor: 0.5 }] }])).rejects.toThrow(/floor/);
      });
    });

    describe('once (idempotent apply)', () => {
      const counted = (id: string, eventId: string, ttlMs = 60_000): ApplyRequest => ({
        entity: ent(id),
        updates: [sum('n', 1, 1), max('seen', 5)],
        once: { id: eventId, ttlMs },
      });

      it('applies an event id once and reports the repeat as seen', async () => {
        expect(await store.apply([counted('u1', 'e1')])).toEqual([true]);
        expect(await store.apply([counted('u1', 'e1')])).toEqual([false]);
        expect(await readSum('u1', 'n')).toBe(1);
      });

      it('de-duplicates within one call', async () => {
        expect(await store.apply([counted('u1', 'e1'), counted('u1', 'e2'), counted('u1', 'e1')])).toEqual([true, true, false]);
        expect(await readSum('u1', 'n')).toBe(2);
      });

      it('remembers ids per scope: the same id on another entity of the scope is the same event', async () => {
        const otherScope = `${scope}-b`;
        const results = await store.apply([counted('u1', 'e1'), counted('u2', 'e1'), { ...counted('u1', 'e1'), entity: { scope: otherScope, id: 'u1' } }]);
        expect(results).toEqual([true, false, true]);
        expect(await readSum('u1', 'n')).toBe(1);
        expect(await readSum('u2', 'n')).toBe(0);
        expect((await store.read({ scope: otherScope, id: 'u1' }, [{ kind: 'sum', series: 'n', floor: 0 }]))[0]).toBe(1);
      });

      it('forgets an id after its ttl', async () => {
        expect(await store.apply([counted('u1', 'e1', 50)])).toEqual([true]);
        await sleep(150);
        expect(await store.apply([counted('u1', 'e1', 50)])).toEqual([true]);
        expect(await readSum('u1', 'n')).toBe(2);
      });
    });

    describe('reserveIds (intake) and once ids share one entry per event id', () => {
      const counted = (id: string, eventId: string, ttlMs = 60_000): ApplyRequest => ({ entity: ent(id), updates: [sum('n', 1, 1)], once: { id: eventId, ttlMs } });

      it('reserves absent ids and reports reserved and applied ones', async () => {
        expect(await store.reserveIds(scope, ['a', 'b'], 60_000)).toEqual(['new', 'new']);
        expect(await store.apply([counted('u1', 'b'), counted('u1', 'c')])).toEqual([true, true]);
        expect(await store.reserveIds(scope, ['a', 'b', 'c', 'd', 'd'], 60_000)).toEqual(['reserved', 'applied', 'applied', 'new', 'reserved']);
        expect(await store.reserveIds(`${scope}-b`, ['a', 'b'], 60_000)).toEqual(['new', 'new']);
      });

      it('applies a reserved id once, on any entity of the scope', async () => {
        await store.reserveIds(scope, ['e1'], 60_000);
        expect(await store.apply([counted('u1', 'e1'), counted('u2', 'e1')])).toEqual([true, false]);
        expect(await store.apply([counted('u1', 'e1')])).toEqual([false]);
        expect(await readSum('u1', 'n')).toBe(1);
        expect(await readSum('u2', 'n')).toBe(0);
      });

      it('unreserves only what no apply consumed', async () => {
        await store.reserveIds(scope, ['a', 'b'], 60_000);
        await store.apply([counted('u1', 'b')]);
        await store.unreserveIds(scope, ['a', 'b'], 60_000);
        expect(await store.reserveIds(scope, ['a', 'b'], 60_000)).toEqual(['new', 'applied']);
      });

      it('forgets a reservation after its ttl', async () => {
        expect(await store.reserveIds(scope, ['a'], 50)).toEqual(['new']);
        await sleep(150);
        expect(await store.reserveIds(scope, ['a'], 50)).toEqual(['new']);
      });

      it('reserves many ids in one call, each once', async () => {
        const ids = Array.from({ length: 1_300 }, (_, i) => `id${i % 900}`);
        expect(await store.reserveIds(scope, ids, 60_000)).toEqual(ids.map((_, i) => (i < 900 ? 'new' : 'reserved')));
      });
    });

    describe('claims', () => {
      it('claims ids once per scope and namespace until released', async () => {
        expect(await store.claim(scope, 'intake', ['a', 'b'], 60_000)).toEqual([true, true]);
        expect(await store.claim(scope, 'intake', ['b', 'c', 'c'], 60_000)).toEqual([false, true, false]);
        expect(await store.claim(scope, 'other', ['a'], 60_000)).toEqual([true]);
        expect(await store.claim(`${scope}-b`, 'intake', ['a'], 60_000)).toEqual([true]);
        await store.release(scope, 'intake', ['b']);
        expect(await store.claim(scope, 'intake', ['a', 'b'], 60_000)).toEqual([false, true]);
      });

      it('frees a claim after its ttl', async () => {
        expect(await store.claim(scope, 'intake', ['a'], 50)).toEqual([true]);
        await sleep(150);
        expect(await store.claim(scope, 'intake', ['a'], 50)).toEqual([true]);
      });

      it('answers writes made with sync: false to every later call, and synced() resolves after them', async () => {
        const deferred = { sync: false };
        expect(await store.claim(scope, 'intake', ['d'], 60_000, deferred)).toEqual([true]);
        expect(await store.apply([{ entity: ent('u1'), updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 2, floor: 0 }], once: { id: 'd1', ttlMs: 60_000 } }], deferred)).toEqual([true]);
        expect(await store.claim(scope, 'intake', ['d'], 60_000)).toEqual([false]);
        expect(await store.apply([{ entity: ent('u1'), updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 2, floor: 0 }], once: { id: 'd1', ttlMs: 60_000 } }], deferred)).toEqual([false]);
        await store.synced();
        expect(await store.read(ent('u1'), [{ kind: 'sum', series: 'n', floor: 0 }])).toEqual([2]);
      });

      it('does not touch series', async () => {
        await store.claim(scope, 'intake', ['u1'], 60_000);
        expect(await store.read(ent('u1'), [{ kind: 'sum', series: 'n', floor: 0 }, { kind: 'max', series: 'seen' }])).toEqual([0, null]);
      });
    });

    describe('holds (edit locks)', () => {
      const take = (id: string, holder: string, ttlMs = 60_000) => store.hold(scope, 'lock', id, { holder, token: `tok-${holder}`, ttlMs });

      it('takes a free hold, renews it for its holder with the same token, and refuses another holder', async () => {
        const before = Date.now();
        const first = await take('d1', 'alice');
        expect(first).toEqual({ won: true, hold: { holder: 'alice', token: 'tok-alice', expiresAt: expect.any(Number) } });
        expect(first.hold.expiresAt).toBeGreaterThanOrEqual(before + 60_000 - 1_000);
        const other = await take('d1', 'bob');
        expect(other).toEqual({ won: false, hold: first.hold });
        const renewed = await store.hold(scope, 'lock', 'd1', { holder: 'alice', token: 'another', ttlMs: 120_000 });
        expect(renewed.won).toBe(true);
        expect(renewed.hold.token).toBe('tok-alice');
        expect(renewed.hold.expiresAt).toBeGreaterThan(first.hold.expiresAt);
        expect(await store.readHold(scope, 'lock', 'd1')).toEqual(renewed.hold);
        expect(await store.readHold(scope, 'lock', 'd2')).toBeNull();
      });

      it('keeps holds of scopes, namespaces and ids apart', async () => {
        expect((await take('d1', 'alice')).won).toBe(true);
        expect((await take('d2', 'bob')).won).toBe(true);
        expect((await store.hold(scope, 'other', 'd1', { holder: 'bob', token: 't', ttlMs: 60_000 })).won).toBe(true);
        expect((await store.hold(`${scope}-b`, 'lock', 'd1', { holder: 'bob', token: 't', ttlMs: 60_000 })).won).toBe(true);
      });

      it('is dropped only by its holder', async () => {
        await take('d1', 'alice');
        expect(await store.dropHold(scope, 'lock', 'd1', 'bob')).toBe(false);
        expect((await store.readHold(scope, 'lock', 'd1'))?.holder).toBe('alice');
        expect(await store.dropHold(scope, 'lock', 'd1', 'alice')).toBe(true);
        expect(await store.readHold(scope, 'lock', 'd1')).toBeNull();
        expect(await store.dropHold(scope, 'lock', 'd1', 'alice')).toBe(false);
        expect((await take('d1', 'bob')).won).toBe(true);
      });

      it('lapses after its ttl, and then another holder takes it with its own token', async () => {
        expect((await take('d1', 'alice', 50)).won).toBe(true);
        await sleep(150);
        expect(await store.readHold(scope, 'lock', 'd1')).toBeNull();
        expect(await take('d1', 'bob')).toMatchObject({ won: true, hold: { holder: 'bob', token: 'tok-bob' } });
      });

      it('one winner among many holders racing for the same hold', async () => {
        const holders = Array.from({ length: 20 }, (_, i) => `p${i}`);
        const answers = await Promise.all(holders.map((h) => take('race', h)));
        const winners = answers.filter((a) => a.won);
        expect(winners).toHaveLength(1);
        for (const a of answers) expect(a.hold).toEqual(winners[0]!.hold);
      });
    });

    describe('schedule and takeDue', () => {
      it('keeps the earliest due time of an entity', async () => {
        await store.schedule(scope, 'flush', [{ id: 'x', dueAt: 100 }]);
        await store.schedule(scope, 'flush', [{ id: 'x', dueAt: 50 }, { id: 'y', dueAt: 300 }]);
        await store.schedule(scope, 'flush', [{ id: 'x', dueAt: 200 }]);
        expect(await store.takeDue(scope, 'flush', 49, 10)).toEqual([]);
        expect(await store.takeDue(scope, 'flush', 50, 10)).toEqual(['x']);
        expect(await store.takeDue(scope, 'flush', 1_000, 10)).toEqual(['y']);
        expect(await store.takeDue(scope, 'flush', 1_000, 10)).toEqual([]);
      });

      it('takes at most `limit`, earliest first, and leaves the rest', async () => {
        await store.schedule(scope, 'flush', [5, 3, 1, 4, 2].map((n) => ({ id: `e${n}`, dueAt: n * 10 })));
        expect(await store.takeDue(scope, 'flush', 100, 2)).toEqual(['e1', 'e2']);
        expect(await store.takeDue(scope, 'flush', 100, 10)).toEqual(['e3', 'e4', 'e5']);
      });

      it('takes thousands in one call, earliest first, each with its lease', async () => {
        const ids = Array.from({ length: 2_500 }, (_, i) => `e${String(i).padStart(4, '0')}`);
        await store.schedule(scope, 'flush', ids.map((id, i) => ({ id, dueAt: 1_000 + i })));
        const lease = { queue: 'leases', dueAt: 90_000, prefix: 'p:' };
        expect(await store.takeDue(scope, 'flush', 10_000, 2_200, lease)).toEqual(ids.slice(0, 2_200));
        expect(await store.takeDue(scope, 'flush', 10_000, 5_000)).toEqual(ids.slice(2_200));
        const leases = await store.takeDue(scope, 'leases', 90_000, 5_000);
        expect(leases.sort()).toEqual(ids.slice(0, 2_200).map((id) => `p:${id}`));
      });

      it('records a lease for what it takes in the same step, and unschedules ids', async () => {
        await store.schedule(scope, 'dirty', [{ id: 'a', dueAt: 1 }, { id: 'b', dueAt: 2 }, { id: 'c', dueAt: 50 }]);
        await store.schedule(scope, 'lease', [{ id: 'me:b', dueAt: 500 }]);
        expect(await store.takeDue(scope, 'dirty', 10, 10, { queue: 'lease', dueAt: 1_000, prefix: 'me:' })).toEqual(['a', 'b']);
        expect(await store.takeDue(scope, 'lease', 999, 10)).toEqual(['me:b']);
        await store.unschedule(scope, 'lease', ['other', 'me:x']);
        expect(await store.takeDue(scope, 'lease', 1_000, 10)).toEqual(['me:a']);
        await store.schedule(scope, 'lease', [{ id: 'me:c', dueAt: 5 }]);
        await store.unschedule(scope, 'lease', ['me:c']);
        expect(await store.takeDue(scope, 'lease', 1_000, 10)).toEqual([]);
        expect(await store.takeDue(scope, 'dirty', 100, 10)).toEqual(['c']);
      });

      it('re-queues what it takes under a lease on the same queue, so an entry not unscheduled comes back', async () => {
        await store.schedule(scope, 'retry', [{ id: 'j1', dueAt: 10 }, { id: 'j2', dueAt: 20 }]);
        expect(await store.takeDue(scope, 'retry', 100, 10, { queue: 'retry', dueAt: 1_000, prefix: '' })).toEqual(['j1', 'j2']);
        expect(await store.takeDue(scope, 'retry', 999, 10)).toEqual([]);
        await store.unschedule(scope, 'retry', ['j1']);
        expect(await store.takeDue(scope, 'retry', 1_000, 10)).toEqual(['j2']);
      });

      it('keeps queues of scopes and names apart', async () => {
        await store.schedule(scope, 'flush', [{ id: 'x', dueAt: 1 }]);
        await store.schedule(`${scope}-b`, 'flush', [{ id: 'x', dueAt: 1 }]);
        await store.schedule(scope, 'other', [{ id: 'z', dueAt: 1 }]);
        expect(await store.takeDue(scope, 'flush', 10, 10)).toEqual(['x']);
        expect(await store.takeDue(`${scope}-b`, 'flush', 10, 10)).toEqual(['x']);
        expect(await store.takeDue(scope, 'other', 10, 10)).toEqual(['z']);
      });
    });

    describe('values', () => {
      it('stores values far larger than a key, answers them in the order asked, null where absent, and deletes them', async () => {
        const big = 'x'.repeat(1_048_576);
        await store.putValues(scope, 'jobs', [{ id: 'a', value: big }, { id: 'b', value: '{"n":1}' }]);
        await store.putValues(`${scope}-b`, 'jobs', [{ id: 'a', value: 'other scope' }]);
        expect(await store.getValues(scope, 'jobs', ['b', 'missing', 'a'])).toEqual(['{"n":1}', null, big]);
        expect(await store.getValues(scope, 'other', ['a'])).toEqual([null]);
        await store.deleteValues(scope, 'jobs', ['a']);
        expect(await store.getValues(scope, 'jobs', ['a', 'b'])).toEqual([null, '{"n":1}']);
        expect(await store.getValues(`${scope}-b`, 'jobs', ['a'])).toEqual(['other scope']);
      });
    });

    describe('deleteEntity', () => {
      it('removes every series of the entity and nothing else', async () => {
        await put('u1', sum('n', 1, 2), sum('amt', 1, 9.5), max('seen', 7));
        await put('u2', sum('n', 1, 1));
        await store.deleteEntity(ent('u1'));
        expect(await store.read(ent('u1'), [{ kind: 'sum', series: 'n', floor: 0 }, { kind: 'sum', series: 'amt', floor: 0 }, { kind: 'max', series: 'seen' }])).toEqual([0, 0, null]);
        expect(await readSum('u2', 'n')).toBe(1);
        await put('u1', sum('n', 2, 1));
        expect(await readSum('u1', 'n')).toBe(1);
      });
    });

    describe('isolation', () => {
      it('keeps the same entity id in two scopes apart', async () => {
        const a: EntityRef = { scope, id: 'same' };
        const b: EntityRef = { scope: `${scope}-b`, id: 'same' };
        await store.apply([{ entity: a, updates: [sum('n', 1, 1), max('seen', 1)] }, { entity: b, updates: [sum('n', 1, 5)] }]);
        await store.deleteEntity(a);
        expect(await store.read(b, [{ kind: 'sum', series: 'n', floor: 0 }])).toEqual([5]);
      });

      it('cannot be fooled by separators inside names', async () => {
        const a: EntityRef = { scope: `${scope}:x`, id: 'y' };
        const b: EntityRef = { scope, id: 'x:y' };
        const c: EntityRef = { scope: `${scope}}`, id: '{x:y' };
        await store.apply([
          { entity: a, updates: [sum('s:1', 1, 1)] },
          { entity: b, updates: [sum('s', 1, 10)] },
          { entity: c, updates: [sum('s', 1, 100)] },
        ]);
        expect(await store.read(a, [{ kind: 'sum', series: 's:1', floor: 0 }, { kind: 'sum', series: 's', floor: 0 }])).toEqual([1, 0]);
        expect(await store.read(b, [{ kind: 'sum', series: 's', floor: 0 }])).toEqual([10]);
        expect(await store.read(c, [{ kind: 'sum', series: 's', floor: 0 }])).toEqual([100]);
      });
    });

    it('applies many requests in one call, each atomically', async () => {
      const requests: ApplyRequest[] = Array.from({ length: 500 }, (_, i) => ({
        entity: ent(`u${i % 50}`),
        updates: [sum('n', i % 7, 1), sum('amt', i % 7, 0.5), max('seen', i)],
        once: { id: `e${i % 250}`, ttlMs: 60_000 },
      }));
      const applied = await store.apply(requests);
      // Event ids repeat every 250 requests, on the same entity (250 is a multiple of 50).
      expect(applied).toEqual(requests.map((_, i) => i < 250));
      const values = await store.read(ent('u7'), [{ kind: 'sum', series: 'n', floor: 0 }, { kind: 'sum', series: 'amt', floor: 0 }, { kind: 'max', series: 'seen' }]);
      expect(values).toEqual([5, 2.5, 207]);
    });

    it('answers per request in a large call mixing once ids, no once id and no updates', async () => {
      const requests: ApplyRequest[] = Array.from({ length: 1_000 }, (_, i) => ({
        entity: ent(`u${i % 5}`),
        updates: i % 10 === 9 ? [] : [sum('n', 1, 1)],
        ...(i % 2 === 0 ? { once: { id: `e${i % 400}`, ttlMs: 60_000 } } : {}),
      }));
      const applied = await store.apply(requests);
      // Even requests carry ids that repeat every 400 requests (on the same entity); odd ones carry none.
      expect(applied).toEqual(requests.map((_, i) => i % 2 === 1 || i < 400));
      const counted = requests.filter((r, i) => applied[i] && r.updates.length > 0);
      expect(await readSum('u0', 'n')).toBe(counted.filter((r) => r.entity.id === 'u0').length);
    });

    it('applies requests of very different sizes in one call', async () => {
      const big: ApplyRequest = { entity: ent('big'), updates: Array.from({ length: 700 }, (_, b) => sum('n', b, 1)), once: { id: 'e-big', ttlMs: 60_000 } };
      const small = (i: number): ApplyRequest => ({ entity: ent(`s${i}`), updates: [sum('n', 1, 2)], once: { id: `e${i}`, ttlMs: 60_000 } });
      expect(await store.apply([small(1), big, small(2), big, small(1)])).toEqual([true, true, true, false, false]);
      expect(await readSum('big', 'n')).toBe(700);
      expect(await readSum('s1', 'n')).toBe(2);
    });

    it('claims many ids in one call, each once', async () => {
      const ids = Array.from({ length: 1_300 }, (_, i) => `id${i % 900}`);
      expect(await store.claim(scope, 'intake', ids, 60_000)).toEqual(ids.map((_, i) => i < 900));
    });

    it('rejects non-finite numbers and fractional buckets before writing anything', async () => {
      await expect(put('u1', sum('n', 1, 1), sum('n', 1.5, 1))).rejects.toThrow(/bucket/);
      await expect(put('u1', sum('n', 1, Number.NaN))).rejects.toThrow(/delta/);
      expect(await readSum('u1', 'n')).toBe(0);
    });

    it('reports itself up while it serves calls, and down once closed', async () => {
      const own = await makeStore();
      await own.apply([{ entity: ent('h1'), updates: [sum('n', 1, 1)] }]);
      expect(own.health()).toEqual({ ok: true });
      await own.close();
      expect(own.health()).toMatchObject({ ok: false, detail: expect.any(String) });
    });

    it('forgets an entity idle longer than the idle ttl', async () => {
      const idle = await makeStore({ idleTtlMs: 100 });
      try {
        await idle.apply([{ entity: ent('u1'), updates: [sum('n', 1, 1), max('seen', 3)] }]);
        await sleep(300);
        expect(await idle.read(ent('u1'), [{ kind: 'sum', series: 'n', floor: 0 }, { kind: 'max', series: 'seen' }])).toEqual([0, null]);
      } finally {
        await idle.close();
      }
    });
  });
}
