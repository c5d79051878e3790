import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../infra/clock.js';
import type { Platform } from '../infra/platform.js';
import { createMemoryWindowStore } from '../infra/windows/memory/index.js';
import type { ApplyRequest, WindowStore } from '../infra/windows/types.js';
import { compileConfig, type CompiledConfig } from '../domain/counters/compile.js';
import { liveReads, liveValues } from '../domain/counters/live-values.js';
import { counterConfigSchema, type TopicEvent } from '../schemas/http/counters.js';
import { APPLY_SLICE, createEventApplier } from '../pipelines/counters/apply-events.js';
import { DIRTY_QUEUE, EXPIRY_QUEUE } from '../pipelines/counters/flusher.js';
import { expiryTick } from '../domain/counters/next-expiry.js';
import { planEvent } from '../domain/counters/plan-event.js';
import type { Decoded } from '../pipelines/stage.js';

/**
 * Issue 31, the consumer's CPU: a partition batch goes to the window store a slice of APPLY_SLICE
 * events at a time, one slice in flight while the next is planned, so a batch's requests do not all
 * live until the last one is answered. Slicing must not change what a batch does: every event
 * counts once (a redelivered batch counts nothing again), alerts see the whole batch's change, and
 * entities are queued for the flusher only once every slice is applied.
 */
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const ORG = 'acme';
const ENTITIES = 10;
const EVENTS = 3 * APPLY_SLICE + 7;
const compiled = compileConfig(
  ORG,
  counterConfigSchema.parse({
    version: 1,
    counters: [
      { name: 'pays_1h', event_type: 'pay', aggregate: 'count', window: { amount: 1, unit: 'hours' }, alert_thresholds: [100] },
      { name: 'amount_24h', event_type: 'pay', aggregate: 'sum', window: { amount: 24, unit: 'hours' } },
    ],
  }),
  [],
);

const batch: Decoded<TopicEvent>[] = Array.from({ length: EVENTS }, (_, i) => ({
  value: { org_id: ORG, event_id: `ev-${i}`, entity_id: `e${i % ENTITIES}`, event_type: 'pay', occurred_at: new Date(T0 - (i % 600) * 1000).toISOString(), value: 1 + (i % 5) },
  message: { topic: 'events', partition: 0, offset: String(i), timestamp: T0, key: `${ORG}:e${i % ENTITIES}`, value: Buffer.alloc(0) },
}));

function expected(): Map<string, { pays_1h: number; amount_24h: number }> {
  const out = new Map<string, { pays_1h: number; amount_24h: number }>();
  for (const { value: e } of batch) {
    const x = out.get(e.entity_id) ?? { pays_1h: 0, amount_24h: 0 };
    out.set(e.entity_id, { pays_1h: x.pays_1h + 1, amount_24h: x.amount_24h + e.value! });
  }
  return out;
}

/** The store with every apply call recorded; `gate` holds the answer of the calls it is given. */
function recording(store: WindowStore, gate: (call: number) => Promise<void> | undefined = () => undefined) {
  const calls: number[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const windows: WindowStore = {
    ...store,
    async apply(requests: ApplyRequest[]) {
      calls.push(requests.length);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        await gate(calls.length);
        return await store.apply(requests);
      } finally {
        inFlight--;
      }
    },
  };
  return { windows, calls, mostInFlight: () => mostInFlight };
}

function applier(windows: WindowStore, flushed: string[][]) {
  const platform = { windows, clock: manualClock(T0), log: pino({ level: 'silent' }) } as unknown as Platform;
  return createEventApplier({
    platform,
    configs: { get: async (org) => (org === ORG ? compiled : null) },
    flusher: { flushNow: async (_c: CompiledConfig, ids: string[]) => void flushed.push([...ids].sort()) },
  });
}

async function counted(store: WindowStore): Promise<Map<string, unknown>> {
  const ids = [...expected().keys()];
  const answers = await store.readMany(ids.map((id) => ({ entity: { scope: ORG, id }, reads: liveReads(compiled, T0) })));
  return new Map(ids.map((id, i) => [id, liveValues(compiled, answers[i]!)]));
}

const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the counter stage applies a batch in slices', () => {
  it('sends a slice at a time, the next only once the one in flight is answered, and counts each event once', async () => {
    const store = await createMemoryWindowStore();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const rec = recording(store, (call) => (call === 1 ? held : undefined));
    const flushed: string[][] = [];
    const handling = applier(rec.windows, flushed)(batch);
    // The second slice is planned meanwhile, but waits for the first's answer.
    await turns(50);
    expect(rec.calls).toEqual([APPLY_SLICE]);
    release();
    await handling;
    expect(rec.calls).toEqual([APPLY_SLICE, APPLY_SLICE, APPLY_SLICE, 7]);
    expect(rec.mostInFlight()).toBe(1);
    expect(await counted(store)).toEqual(expected());
    // Every entity's count went from 0 to over 100 across slices: the alert sees the batch's change.
    expect(flushed).toEqual([Array.from({ length: ENTITIES }, (_, i) => `e${i}`).sort()]);
    expect((await store.takeDue(ORG, DIRTY_QUEUE, T0, 100)).sort()).toEqual([...expected().keys()].sort());
    // Each entity once, due at the first flush tick at which one of its events leaves a window.
    const ticks = new Map<string, number>();
    for (const { value: e } of batch) {
      const at = planEvent(compiled, e, T0).expiresAt;
      if (at !== null) ticks.set(e.entity_id, Math.min(ticks.get(e.entity_id) ?? Infinity, expiryTick(at, compiled.flushMs)));
    }
    for (const tick of [...new Set(ticks.values())].sort((x, y) => x - y)) {
      expect(await store.takeDue(ORG, EXPIRY_QUEUE, tick - 1, 100_000)).toEqual([]);
      expect(await store.takeDue(ORG, EXPIRY_QUEUE, tick, 100_000)).toEqual([...ticks].filter(([, t]) => t === tick).map(([id]) => id).sort());
    }
    expect(await store.takeDue(ORG, EXPIRY_QUEUE, T0 + 2 * 86_400_000, 100_000)).toEqual([]);

    // Redelivered (a crash before the commit): every id was applied, in whichever slice.
    const again: string[][] = [];
    await applier(rec.windows, again)(batch);
    expect(await counted(store)).toEqual(expected());
    expect(again).toEqual([]);
  });

  it('fails the batch when a slice fails, queues nothing, and counts each event once on redelivery', async () => {
    const store = await createMemoryWindowStore();
    // The first slice fails while the second is being planned: held until the handler awaits it.
    const rec = recording(store, (call) => (call === 1 ? Promise.reject(new Error('Redis timeout')) : undefined));
    await expect(applier(rec.windows, [])(batch)).rejects.toThrow('Redis timeout');
    expect(rec.calls).toEqual([APPLY_SLICE]);
    expect(await store.takeDue(ORG, DIRTY_QUEUE, T0, 100)).toEqual([]);

    const failingThird = recording(store, (call) => (call === 3 ? Promise.reject(new Error('Redis timeout')) : undefined));
    await expect(applier(failingThird.windows, [])(batch)).rejects.toThrow('Redis timeout');
    expect(await store.takeDue(ORG, DIRTY_QUEUE, T0, 100)).toEqual([]);

    const flushed: string[][] = [];
    await applier(store, flushed)(batch);
    expect(await counted(store)).toEqual(expected());
    expect((await store.takeDue(ORG, DIRTY_QUEUE, T0, 100)).sort()).toEqual([...expected().keys()].sort());
  });
});
