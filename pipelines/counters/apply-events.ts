import type { Platform } from '../../infra/platform.js';
import { breather } from '../../infra/breather.js';
import { oneInFlight } from '../../infra/one-in-flight.js';
import { deadLetter, type Rejected } from '../dead-letter.js';
import type { ApplyRequest } from '../../infra/windows/types.js';
import type { TopicEvent } from '../../schemas/http/counters.js';
import type { CompiledConfig } from '../../domain/counters/compile.js';
import { checkEvent } from '../../domain/counters/check-event.js';
import { crossesThreshold, planEvent, type Watched } from '../../domain/counters/plan-event.js';
import type { Decoded } from '../stage.js';
import type { ConfigStore } from './config-store.js';
import { expiryTick } from '../../domain/counters/next-expiry.js';
import { DIRTY_QUEUE, EXPIRY_QUEUE, type Flusher } from './flusher.js';

export const EVENTS_TOPIC = 'events';

interface Applied {
  compiled: CompiledConfig;
  entityId: string;
  watched: readonly Watched[];
}

type Due = [org: string, entries: { id: string; dueAt: number }[]][];

/**
 * Per organization, the entities a batch changed (all due on the dirty queue at the batch's
 * instant) and the earliest flush tick at which each one's values drop (one expiry-queue member per
 * entity, however many expiries its events bring: the flusher schedules the later ones as each
 * comes due). One map entry per entity serves both queues: an event costs one lookup.
 */
class ChangedEntities {
  private readonly byOrg = new Map<string, Map<string, number>>();

  /** `tick` is the event's expiry tick, Infinity for an event that enters no window. */
  add(org: string, entity: string, tick: number): void {
    let entities = this.byOrg.get(org);
    if (!entities) this.byOrg.set(org, (entities = new Map<string, number>()));
    const cur = entities.get(entity);
    if (cur === undefined || tick < cur) entities.set(entity, tick);
  }

  dirty(dueAt: number): Due {
    const out: Due = [];
    this.byOrg.forEach((entities, org) => out.push([org, Array.from(entities.keys(), (id) => ({ id, dueAt }))]));
    return out;
  }

  expiries(): Due {
    const out: Due = [];
    this.byOrg.forEach((entities, org) => {
      const entries: { id: string; dueAt: number }[] = [];
      entities.forEach((dueAt, id) => dueAt !== Infinity && entries.push({ id, dueAt }));
      if (entries.length > 0) out.push([org, entries]);
    });
    return out;
  }
}

/**
 * Events per window-store call. A partition batch holds thousands of events and six are handled
 * at once; planned whole, their requests and the store's arguments for them all lived until the
 * last script answered, long enough for the collector to copy them twice and then promote them
 * (issue 31: a fifth of the consumer's CPU). In slices, one in flight while the next is planned,
 * they live for a slice's round trip; 512 requests outweigh the store's apply limit, so Redis never
 * waits for planning.
 */
export const APPLY_SLICE = 512;

/** One slice's requests, each one's offset in the partition, and those of them whose counters have alert thresholds. */
interface Slice {
  requests: ApplyRequest[];
  offsets: number[];
  watched: { at: number; applied: Applied }[];
}

/**
 * The counter stage's handler for one partition batch of `events`. Events are checked against their
 * organization's configuration (the same rules as HTTP intake; failures go to `events.dlq` with the
 * reason), planned into series updates, and applied with `once` on event_id, a window-store call
 * per APPLY_SLICE events, so a batch redelivered after a crash counts each event once. Every
 * planned entity is queued for the flusher, once every slice is applied, even when its update was
 * a duplicate: the process that applied it first may have died before queuing it.
 */
export function createEventApplier(deps: { platform: Platform; configs: Pick<ConfigStore, 'get'>; flusher: Pick<Flusher, 'flushNow'> }) {
  const { windows, bus, clock, log } = deps.platform;

  async function rejectEvents(rejected: Rejected[]): Promise<void> {
    if (rejected.length === 0) return;
    await deadLetter(bus, EVENTS_TOPIC, rejected);
    log.warn({ count: rejected.length, first: rejected[0]!.reason }, 'counter events dead-lettered');
  }

  /** Flushes at once the entities whose applied events moved a value across an alert threshold. */
  async function flushCrossings(applied: Applied[]): Promise<void> {
    const byEntity = new Map<string, { compiled: CompiledConfig; entityId: string; watched: Map<string, Watched> }>();
    for (const a of applied) {
      if (a.watched.length === 0) continue;
      const key = JSON.stringify([a.compiled.orgId, a.entityId]);
      const entry = byEntity.get(key) ?? { compiled: a.compiled, entityId: a.entityId, watched: new Map() };
      for (const w of a.watched) {
        const sum = entry.watched.get(w.series);
        entry.watched.set(w.series, sum ? { ...sum, delta: sum.delta + w.delta } : w);
      }
      byEntity.set(key, entry);
    }
    const entries = [...byEntity.values()].map((e) => ({ ...e, ws: [...e.watched.values()] }));
    const afters = await windows.readMany(entries.map((e) => ({ entity: { scope: e.compiled.orgId, id: e.entityId }, reads: e.ws.map((w) => ({ kind: 'sum' as const, series: w.series, floor: w.floor })) })));
    const crossed = new Map<CompiledConfig, string[]>();
    entries.forEach(({ compiled, entityId, ws }, k) => {
      const after = afters[k]!;
      if (ws.some((w, i) => crossesThreshold((after[i] ?? 0) - w.delta, after[i] ?? 0, w.thresholds))) {
        crossed.set(compiled, [...(crossed.get(compiled) ?? []), entityId]);
      }
    });
    for (const [compiled, ids] of crossed) await deps.flusher.flushNow(compiled, ids);
  }

  return async function handle(records: Decoded<TopicEvent>[]): Promise<void> {
    const now = clock.now();
    const rejected: Rejected[] = [];
    const crossing: Applied[] = [];
    const changed = new ChangedEntities();
    // One lookup per organization and batch: the loop below is per event.
    const configs = new Map<string, CompiledConfig | null>();
    const emptySlice = (): Slice => ({ requests: [], offsets: [], watched: [] });
    let slice = emptySlice();
    // The batch's partition, so that the store can tell a redelivery from a new event (ApplySource).
    const from = records[0]?.message;
    /** One slice applied at a time, the next planned meanwhile. */
    const slices = oneInFlight();
    const send = (s: Slice): Promise<void> =>
      slices.start(async () => {
        const applied = await windows.apply(s.requests, from?.topic === undefined ? undefined : { source: { topic: from.topic, partition: from.partition, offsets: s.offsets } });
        for (const w of s.watched) if (applied[w.at]) crossing.push(w.applied);
      });
    // A partition batch can hold thousands of events: planned in slices, requests served between.
    const breathe = breather(64);
    for (const { value: event, message } of records) {
      // Awaited only when it yields: an await on every record costs a promise and a microtask each.
      const pause = breathe();
      if (pause) await pause;
      let compiled = configs.get(event.org_id);
      if (compiled === undefined) configs.set(event.org_id, (compiled = await deps.configs.get(event.org_id)));
      // Parsed once for the check and the plan: Date.parse of the text is a fair part of an event's work.
      const occurredAt = Date.parse(event.occurred_at);
      const reason = checkEvent(compiled, event, now, occurredAt);
      if (reason) {
        rejected.push({ message, reason });
        continue;
      }
      if (!compiled) continue;
      const plan = planEvent(compiled, event, now, occurredAt);
      if (plan.updates.length === 0) continue;
      if (plan.watched.length > 0) slice.watched.push({ at: slice.requests.length, applied: { compiled, entityId: event.entity_id, watched: plan.watched } });
      slice.requests.push({ entity: { scope: event.org_id, id: event.entity_id }, updates: plan.updates, once: { id: event.event_id, ttlMs: compiled.eventIdTtlMs } });
      slice.offsets.push(Number(message.offset));
      changed.add(event.org_id, event.entity_id, plan.expiresAt === null ? Infinity : expiryTick(plan.expiresAt, compiled.flushMs));
      if (slice.requests.length === APPLY_SLICE) {
        const full = slice;
        slice = emptySlice();
        await send(full);
      }
    }
    if (slice.requests.length > 0) await send(slice);
    await slices.settle();
    await rejectEvents(rejected);
    await Promise.all([
      ...changed.dirty(now).map(([org, entries]) => windows.schedule(org, DIRTY_QUEUE, entries)),
      ...changed.expiries().map(([org, entries]) => windows.schedule(org, EXPIRY_QUEUE, entries)),
    ]);
    await flushCrossings(crossing);
  };
}
