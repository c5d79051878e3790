/**
 * The counters pair's workload: one configuration (a 1-hour count, a 24-hour sum and the last seen
 * time of `txn` events), N events over E entities (event n belongs to entity n mod E), occurred_at
 * spread over the SPREAD hours before the fill, unique ids. Every event is a pure function of n and
 * the fill instant, so the true values of any entity at any instant can be computed to check what
 * each side read.
 */
import { Kafka, logLevel } from 'kafkajs';
import { EVENTS_TOPIC } from '../../../pipelines/counters/apply-events.js';
import type { TopicEvent } from '../../../schemas/http/counters.js';

export const EVENTS = Number(process.env.WEIR_PEERS_COUNTERS_EVENTS ?? 500_000);
export const ENTITIES = Number(process.env.WEIR_PEERS_COUNTERS_ENTITIES ?? 50_000);
/** 24 by default; 0 puts every event at the fill instant (events arriving at the present time). */
export const SPREAD_HOURS = Number(process.env.WEIR_PEERS_COUNTERS_SPREAD_HOURS ?? 24);
export const PARTITIONS = 6;
export const SAMPLE = 50;
export const ORG = 'peers';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The Weir counter configuration both sides compute. */
export const counterConfig = {
  flush_interval_seconds: 10,
  counters: [
    { name: 'txn_count_1h', event_type: 'txn', aggregate: 'count', window: { amount: 1, unit: 'hours' } },
    { name: 'txn_amount_24h', event_type: 'txn', aggregate: 'sum', window: { amount: 24, unit: 'hours' } },
    { name: 'txn_last_seen', event_type: 'txn', aggregate: 'last_seen' },
  ],
};

export const entityOf = (n: number): string => `entity-${n % ENTITIES}`;

/**
 * Milliseconds before the fill instant at which event n occurred: a multiplicative hash of n, so one
 * entity's events are scattered over the spread and arrive out of time order, never older than the
 * spread less a minute (so the first round still finds them inside the 24-hour window).
 */
const ageOf = (n: number): number => (SPREAD_HOURS === 0 ? 0 : Number((BigInt(n) * 2654435761n) % BigInt(SPREAD_HOURS * HOUR_MS - 60_000)));

export function eventOf(n: number, filledAt: number): TopicEvent {
  return { org_id: ORG, event_id: `ev-${n}`, entity_id: entityOf(n), event_type: 'txn', occurred_at: new Date(filledAt - ageOf(n)).toISOString(), value: (n % 997) / 10 };
}

/** Produces the N events to `events` in order of n, keyed as Weir's intake keys them. */
export async function fillTopic(brokers: string[], filledAt: number): Promise<void> {
  const kafka = new Kafka({ clientId: 'peers-fill', brokers, logLevel: logLevel.ERROR });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    const CHUNK = 5_000;
    for (let from = 0; from < EVENTS; from += CHUNK) {
      const messages = [];
      for (let n = from; n < Math.min(EVENTS, from + CHUNK); n++) {
        const e = eventOf(n, filledAt);
        messages.push({ key: `${ORG}:${e.entity_id}`, value: JSON.stringify(e) });
      }
      await producer.send({ topic: EVENTS_TOPIC, messages, acks: -1 });
    }
  } finally {
    await producer.disconnect();
  }
}

export interface Values {
  count1h: number;
  sum24h: number;
  /** Epoch ms, or null. */
  lastSeen: number | null;
}

/** Lowest second inside a window at `now` (the window is (now - window, now], per-second buckets). */
const floorSecond = (now: number, windowMs: number): number => Math.floor((now - windowMs) / 1000) + 1;

/** The sample of entities both sides are checked on: spread over the entity range. */
export const sampleEntities = (): number[] => Array.from({ length: Math.min(SAMPLE, ENTITIES) }, (_, i) => Math.floor((i * ENTITIES) / Math.min(SAMPLE, ENTITIES)));

/** True values of entity number `entity` at `now`. */
export function truthAt(entity: number, filledAt: number, now: number): Values {
  const out: Values = { count1h: 0, sum24h: 0, lastSeen: null };
  for (let n = entity; n < EVENTS; n += ENTITIES) {
    const e = eventOf(n, filledAt);
    const at = Date.parse(e.occurred_at);
    const second = Math.floor(at / 1000);
    if (second >= floorSecond(now, HOUR_MS)) out.count1h += 1;
    if (second >= floorSecond(now, DAY_MS)) out.sum24h += e.value!;
    out.lastSeen = Math.max(out.lastSeen ?? at, at);
  }
  return out;
}

/** Compares what a side read (entity number -> values, each read at its instant) with the truth; answers the mismatches, described. */
export function mismatches(read: Map<number, { values: Values; now: number }>, filledAt: number): string[] {
  const out: string[] = [];
  for (const entity of sampleEntities()) {
    const got = read.get(entity);
    if (!got) {
      out.push(`${entityOf(entity)}: not read`);
      continue;
    }
    const want = truthAt(entity, filledAt, got.now);
    const same = got.values.count1h === want.count1h && Math.abs(got.values.sum24h - want.sum24h) < 0.005 && got.values.lastSeen === want.lastSeen;
    if (!same) out.push(`${entityOf(entity)} at ${new Date(got.now).toISOString()}: read ${JSON.stringify(got.values)}, true ${JSON.stringify(want)}`);
  }
  return out;
}
