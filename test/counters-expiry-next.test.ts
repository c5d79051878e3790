import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../infra/clock.js';
import type { Platform } from '../infra/platform.js';
import { createMemoryWindowStore } from '../infra/windows/memory/index.js';
import type { WindowStore } from '../infra/windows/types.js';
import { compileConfig, type CompiledConfig } from '../domain/counters/compile.js';
import { counterConfigSchema, type TopicEvent } from '../schemas/http/counters.js';
import { createEventApplier } from '../pipelines/counters/apply-events.js';
import { EXPIRY_QUEUE, OLD_EXPIRY_QUEUE, createFlusher } from '../pipelines/counters/flusher.js';
import type { ConfigStore } from '../pipelines/counters/config-store.js';
import type { CounterTable, FlushRow } from '../pipelines/counters/counter-table.js';
import type { Decoded } from '../pipelines/stage.js';
import { planEvent } from '../domain/counters/plan-event.js';

/**
 * Issue 31: the expiry queue holds one member per entity, due at its earliest expiry; each flush of
 * it schedules the next one from the store's lowest live buckets.
 */
const T0 = Date.UTC(2030, 0, 1, 1, 0, 0);
const S = 1_000;
const ORG = 'acme';
const compiled = compileConfig(
  ORG,
  counterConfigSchema.parse({ version: 1, flush_interval_seconds: 1, counters: [{ name: 'logins_1m', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'minutes' } }] }),
  [],
);
const configs = { known: () => [compiled], onChange: (cb: (c: CompiledConfig) => void) => (cb(compiled), () => undefined) } as unknown as ConfigStore;
const log = pino({ level: 'silent' });

let n = 0;
const login = (entity: string, at: number): Decoded<TopicEvent> => ({
  value: { org_id: ORG, event_id: `ev-${++n}`, entity_id: entity, event_type: 'login', occurred_at: new Date(at).toISOString() },
  message: { topic: 'events', partition: 0, offset: String(n), timestamp: at, key: `${ORG}:${entity}`, value: Buffer.alloc(0) },
});

/** The store with its expiry-queue schedules recorded (ids and due times, as offsets from T0). */
function recorded(store: WindowStore, frozen?: () => void) {
  const expiries: [string, number][][] = [];
  const windows: WindowStore = {
    ...store,
    async schedule(scope, queue, entries) {
      if (queue === EXPIRY_QUEUE) {
        expiries.push(entries.map((e) => [e.id, e.dueAt - T0]));
        // A process killed between the row's write and this schedule.
        if (frozen) return frozen(), new Promise<never>(() => undefined);
      }
      return store.schedule(scope, queue, entries);
    },
  };
  return { windows, expiries };
}

function harness(store: WindowStore, clock: ReturnType<typeof manualClock>, frozen?: () => void) {
  const rows: FlushRow[] = [];
  const { windows, expiries } = recorded(store, frozen);
  const platform = { windows, clock, log } as unknown as Platform;
  const table = { read: async () => new Map(), write: async (_t: string, _o: string, written: FlushRow[]) => void rows.push(...written) } as unknown as CounterTable;
  const flusher = createFlusher({ platform, configs, table });
  const apply = createEventApplier({ platform, configs: { get: async () => compiled }, flusher });
  /** Moves the clock to T0 + `s` seconds, flushes, and answers the values written. */
  const flushAt = async (s: number): Promise<unknown[]> => {
    clock.set(T0 + s * S);
    rows.length = 0;
    await flusher.tick();
    return rows.map((r) => [r.entity_id, r.values.logins_1m]);
  };
  return { apply, flushAt, expiries };
}

describe('one expiry-queue member per entity', () => {
  it("drops a counter at each of an entity's expiries from one queue member, and follows a later event", async () => {
    const clock = manualClock(T0);
    const h = harness(await createMemoryWindowStore(), clock);
    // Leaving the 1-minute window at +10 s, +30 s and +50 s.
    await h.apply([login('u1', T0 - 50 * S), login('u1', T0 - 30 * S), login('u1', T0 - 10 * S)]);
    expect(h.expiries).toEqual([[['u1', 10 * S]]]);
    expect(await h.flushAt(1)).toEqual([['u1', 3]]);
    expect(await h.flushAt(10)).toEqual([['u1', 2]]);
    expect(h.expiries.slice(1)).toEqual([[['u1', 30 * S]]]);
    // Touched again meanwhile: its own member (+80 s) is later than the pending one, which stays.
    clock.set(T0 + 20 * S);
    await h.apply([login('u1', T0 + 20 * S)]);
    expect(await h.flushAt(21)).toEqual([['u1', 3]]);
    expect(await h.flushAt(29)).toEqual([]);
    expect(await h.flushAt(30)).toEqual([['u1', 2]]);
    expect(await h.flushAt(50)).toEqual([['u1', 1]]);
    expect(await h.flushAt(79)).toEqual([]);
    expect(await h.flushAt(80)).toEqual([['u1', 0]]);
    expect(h.expiries.slice(2)).toEqual([[['u1', 80 * S]], [['u1', 50 * S]], [['u1', 80 * S]]]);
    // Nothing left in a window: no member, until the entity is touched again after its flushes.
    expect(await h.flushAt(200)).toEqual([]);
    clock.set(T0 + 300 * S);
    await h.apply([login('u1', T0 + 300 * S)]);
    expect(await h.flushAt(301)).toEqual([['u1', 1]]);
    expect(await h.flushAt(360)).toEqual([['u1', 0]]);
    expect(h.expiries.slice(5)).toEqual([[['u1', 360 * S]]]);
  });

  it('schedules the next expiry after a crash between the flush and its schedule, from the lease', async () => {
    const clock = manualClock(T0);
    const store = await createMemoryWindowStore();
    let froze!: () => void;
    const frozen = new Promise<void>((resolve) => (froze = resolve));
    const dying = harness(store, clock, froze);
    const live = harness(store, clock);
    await live.apply([login('u1', T0 - 50 * S), login('u1', T0 - 30 * S)]);
    live.expiries.length = 0;
    expect(await live.flushAt(1)).toEqual([['u1', 2]]);
    clock.set(T0 + 10 * S);
    void dying.flushAt(10);
    await frozen;
    // The dead process's lease comes due two intervals and ten seconds later.
    expect(await live.flushAt(21)).toEqual([]);
    expect(await live.flushAt(22)).toEqual([['u1', 1]]);
    expect(live.expiries).toEqual([[['u1', 30 * S]]]);
    expect(await live.flushAt(30)).toEqual([['u1', 0]]);
  });

  it("flushes members of the earlier `<tick>:<entity>` form and gives their entities the next expiry", async () => {
    const clock = manualClock(T0);
    const store = await createMemoryWindowStore();
    const events = [login('u:1', T0 - 50 * S), login('u:1', T0 - 30 * S)];
    await store.apply(events.map(({ value: e }) => ({ entity: { scope: ORG, id: e.entity_id }, updates: planEvent(compiled, e, T0).updates })));
    await store.schedule(ORG, OLD_EXPIRY_QUEUE, [{ id: `${T0 + 10 * S}:u:1`, dueAt: T0 + 10 * S }]);
    const h = harness(store, clock);
    expect(await h.flushAt(10)).toEqual([['u:1', 1]]);
    expect(h.expiries).toEqual([[['u:1', 30 * S]]]);
    expect(await h.flushAt(30)).toEqual([['u:1', 0]]);
    expect(await store.takeDue(ORG, OLD_EXPIRY_QUEUE, T0 + 3_600 * S, 10)).toEqual([]);
  });
});
