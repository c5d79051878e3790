import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../infra/clock.js';
import type { Platform } from '../infra/platform.js';
import { createMemoryWindowStore } from '../infra/windows/memory/index.js';
import type { WindowStore } from '../infra/windows/types.js';
import { compileConfig, type CompiledConfig } from '../domain/counters/compile.js';
import { counterConfigSchema } from '../schemas/http/counters.js';
import { DIRTY_QUEUE, EXPIRY_QUEUE, OLD_EXPIRY_QUEUE, createFlusher, targetOfLease } from '../pipelines/counters/flusher.js';
import type { ConfigStore } from '../pipelines/counters/config-store.js';
import type { CounterTable, FlushRow } from '../pipelines/counters/counter-table.js';

const T0 = Date.UTC(2030, 0, 1, 1, 0, 0);
const ORG = 'acme';
const compiled = compileConfig(
  ORG,
  counterConfigSchema.parse({ version: 1, flush_interval_seconds: 1, counters: [{ name: 'logins_1h', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' } }] }),
  [],
);
const configs = { known: () => [compiled], onChange: (cb: (c: CompiledConfig) => void) => (cb(compiled), () => undefined) } as unknown as ConfigStore;

function tableInto(rows: FlushRow[]): CounterTable {
  return { read: async () => new Map(), write: async (_t: string, _o: string, written: FlushRow[]) => void rows.push(...written) } as unknown as CounterTable;
}

/**
 * A process that dies just after its flusher took entities off the queues: the takes go through,
 * and every later call of that process never returns (as if it were killed there).
 */
function dyingAfterTake(store: WindowStore): { windows: WindowStore; took: Promise<void> } {
  let tookOne!: () => void;
  const took = new Promise<void>((resolve) => (tookOne = resolve));
  const frozen = new Promise<never>(() => undefined);
  const windows = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop === 'takeDue') return async (...args: unknown[]) => {
        const taken = await (value as (...a: unknown[]) => Promise<string[]>).apply(target, args);
        tookOne();
        return taken;
      };
      return () => frozen;
    },
  });
  return { windows, took };
}

describe('counter flusher crash', () => {
  it('flushes the entities a dead process took off the queues, once its leases come due', async () => {
    const clock = manualClock(T0);
    const log = pino({ level: 'silent' });
    const store = await createMemoryWindowStore();
    await store.schedule(ORG, DIRTY_QUEUE, [{ id: 'u1', dueAt: T0 }, { id: 'u:2', dueAt: T0 }]);

    const dying = dyingAfterTake(store);
    const lost: FlushRow[] = [];
    const first = createFlusher({ platform: { windows: dying.windows, clock, log } as unknown as Platform, configs, table: tableInto(lost) });
    clock.advance(1_000);
    void first.tick();
    await dying.took;

    const rows: FlushRow[] = [];
    const second = createFlusher({ platform: { windows: store, clock, log } as unknown as Platform, configs, table: tableInto(rows) });
    clock.advance(1_000);
    await second.tick();
    expect(rows).toEqual([]);
    // The dead process's leases are due two intervals and ten seconds after it took the entities.
    clock.advance(12_000);
    await second.tick();
    expect(rows.map((r) => r.entity_id).sort()).toEqual(['u1', 'u:2']);
    expect(lost).toEqual([]);
  });

  it('reads the entity out of every lease form', () => {
    const a = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const b = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    expect(targetOfLease(`${a}:d:user:1`)).toEqual({ entity: 'user:1', expiring: false });
    expect(targetOfLease(`${a}:x:e:user:1`)).toEqual({ entity: 'user:1', expiring: true });
    expect(targetOfLease(`${a}:x:1893459600000:user:1`)).toEqual({ entity: 'user:1', expiring: true });
    expect(targetOfLease(`${b}:${a}:d:${a}:x`)).toEqual({ entity: `${a}:x`, expiring: false });
    expect(targetOfLease(`${b}:${a}:x:e:${a}:x`)).toEqual({ entity: `${a}:x`, expiring: true });
  });

  it('flushes more entities than a chunk a chunk at a time, each once, and leaves no entry or lease behind', async () => {
    const clock = manualClock(T0);
    const log = pino({ level: 'silent' });
    const store = await createMemoryWindowStore();
    const dirty = Array.from({ length: 2_500 }, (_, i) => `u${i}`);
    // The first 1,500 dirty entities also have an event leaving a window; 500 more only that, in
    // the expiry queue of before an upgrade (`<tick>:<entity>`) and the present one.
    const expiring = [...dirty.slice(0, 1_500), ...Array.from({ length: 500 }, (_, i) => `e${i}`)];
    await store.schedule(ORG, DIRTY_QUEUE, dirty.map((id) => ({ id, dueAt: T0 })));
    await store.schedule(ORG, OLD_EXPIRY_QUEUE, expiring.slice(0, 1_000).map((id) => ({ id: `${T0}:${id}`, dueAt: T0 })));
    await store.schedule(ORG, EXPIRY_QUEUE, expiring.slice(1_000).map((id) => ({ id, dueAt: T0 })));

    const asked: number[] = [];
    const windows = new Proxy(store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'takeDue' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          asked.push(args[3] as number);
          return (value as (...a: unknown[]) => Promise<string[]>).apply(target, args);
        };
      },
    });
    const writes: FlushRow[][] = [];
    const table = { read: async () => new Map(), write: async (_t: string, _o: string, rows: FlushRow[]) => void writes.push(rows) } as unknown as CounterTable;
    const flusher = createFlusher({ platform: { windows, clock, log } as unknown as Platform, configs, table });
    clock.advance(1_000);
    await flusher.tick();

    const written = writes.flat().map((r) => r.entity_id);
    expect(written.length).toBe(3_000);
    expect(new Set(written)).toEqual(new Set([...dirty, ...expiring]));
    expect(Math.max(...asked)).toBeLessThanOrEqual(1_000);
    expect(Math.max(...writes.map((w) => w.length))).toBeLessThanOrEqual(1_000);
    const later = T0 + 3_600_000;
    for (const queue of [DIRTY_QUEUE, EXPIRY_QUEUE, OLD_EXPIRY_QUEUE, 'flushing']) expect(await store.takeDue(ORG, queue, later, 10_000)).toEqual([]);
  });
});
