/**
 * The Redis window store's own ceiling for the pair's updates: every event planned as the counter
 * pipeline plans it (planEvent, at one instant), then applied with its once id straight to the
 * store, in calls of 500, six in flight (one per partition, each call with its partition and offsets
 * as the consumer sends them), no Kafka and no pipeline. Planning is
 * done before the clock starts: the figure is the store (client and server) alone. The pipeline's
 * flush-queue calls (one per batch) are not in it.
 */
import { compileConfig } from '../../../domain/counters/compile.js';
import { planEvent } from '../../../domain/counters/plan-event.js';
import { createRedisWindowStore } from '../../../infra/windows/redis/index.js';
import type { ApplyRequest, ApplySource } from '../../../infra/windows/types.js';
import { counterConfigSchema } from '../../../schemas/http/counters.js';
import { counterConfig, eventOf, EVENTS, ORG, PARTITIONS } from './workload.js';

const CALL = 500;

/** The pair's events planned as the counter pipeline plans them at `now`, in apply calls of CALL, with their once ids. */
export function plannedCalls(filledAt: number, now: number): ApplyRequest[][] {
  const compiled = compileConfig(ORG, counterConfigSchema.parse({ ...counterConfig, version: 1 }), []);
  const calls: ApplyRequest[][] = [];
  for (let from = 0; from < EVENTS; from += CALL) {
    const call: ApplyRequest[] = [];
    for (let n = from; n < Math.min(EVENTS, from + CALL); n++) {
      const e = eventOf(n, filledAt);
      const { updates } = planEvent(compiled, e, now);
      if (updates.length > 0) call.push({ entity: { scope: ORG, id: e.entity_id }, updates, once: { id: e.event_id, ttlMs: compiled.eventIdTtlMs } });
    }
    calls.push(call);
  }
  return calls;
}

/**
 * The calls dealt to PARTITIONS partitions, one in flight each: each partition's calls in order,
 * with their offsets, as the consumer applies them (ApplySource).
 */
export async function applyByPartition(calls: ApplyRequest[][], apply: (call: ApplyRequest[], source: ApplySource) => Promise<void>): Promise<void> {
  await Promise.all(
    Array.from({ length: PARTITIONS }, async (_, partition) => {
      let offset = 0;
      for (let c = partition; c < calls.length; c += PARTITIONS) {
        const call = calls[c]!;
        await apply(call, { topic: 'events', partition, offsets: call.map(() => offset++) });
      }
    }),
  );
}

export async function storeCeiling(redisUrl: string, filledAt: number): Promise<number> {
  const calls = plannedCalls(filledAt, Date.now());
  // A ceiling is a throughput: calls wait their turn, however long, rather than time out.
  const store = createRedisWindowStore({ url: redisUrl, commandTimeoutMs: 600_000 });
  try {
    const started = performance.now();
    await applyByPartition(calls, async (call, source) => void (await store.apply(call, { source })));
    return (EVENTS * 1000) / (performance.now() - started);
  } finally {
    await store.close();
  }
}
