import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedBus } from '../infra/bus/embedded/index.js';
import type { Bus } from '../infra/bus/types.js';
import { createCodec } from '../infra/codec/index.js';
import { manualClock } from '../infra/clock.js';
import { createLmdbWindowStore } from '../infra/windows/lmdb/index.js';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import type { WindowStore } from '../infra/windows/types.js';
import { createRetrySchedule, LEASE_MS } from '../pipelines/webhooks/retry-schedule.js';
import { DELIVERIES_TOPIC, type DeliveryJob } from '../pipelines/webhooks/topics.js';
import { requireAddress, shouldRun } from './support/infra.js';

/**
 * The retry schedule against a bus that stops: jobs falling due while it is down stay scheduled
 * (their lease brings them back) and reach `webhook.deliveries` once it is up again, each once.
 * The bus is the real embedded log behind a switch that refuses appends as a stopped Kafka does;
 * the clock is moved by hand so the 60 s outage takes no wall time.
 */

const OUTAGE_MS = 60_000;

function switchable(bus: Bus, codec: ReturnType<typeof createCodec>) {
  let down = false;
  const sent: DeliveryJob[] = [];
  const gated: Bus = {
    kind: bus.kind,
    logId: bus.logId,
    ensureTopics: (t) => bus.ensureTopics(t),
    subscribe: (o) => bus.subscribe(o),
    health: () => bus.health(),
    lag: (g, t) => bus.lag(g, t),
    close: () => bus.close(),
    async send(topic, messages) {
      if (down) throw new Error('KafkaJSConnectionError: Connection error: connect ECONNREFUSED');
      await bus.send(topic, messages);
      if (topic === DELIVERIES_TOPIC) for (const m of messages) sent.push((await codec.decode(topic, m.value)) as DeliveryJob);
    },
  };
  return { bus: gated, sent, setDown: (d: boolean) => void (down = d) };
}

const job = (i: number, payload: Record<string, unknown> = { i }): DeliveryJob => ({
  delivery_id: `whd_${i}`,
  org_id: 'org_s',
  target: 'wh_t',
  event: 'workflow_run_completed',
  timestamp: '2026-01-01T00:00:00.000Z',
  payload,
  attempt: 2,
});

function scheduleSuite(name: string, makeStore: () => Promise<WindowStore>) {
  describe(name, () => {
    const closing: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const c of closing.splice(0)) await c();
    });

    async function setup() {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-retry-'));
      const codec = createCodec();
      const real = await createEmbeddedBus({ dir, log: pino({ level: 'silent' }) });
      await real.ensureTopics([{ topic: DELIVERIES_TOPIC, partitions: 2 }]);
      const windows = await makeStore();
      closing.push(() => real.close(), () => windows.close());
      const gate = switchable(real, codec);
      const clock = manualClock(1_000_000);
      const schedule = createRetrySchedule({ windows, clock, codec, bus: gate.bus, log: pino({ level: 'silent' }) });
      return { gate, clock, schedule, windows };
    }

    it('loses nothing and sends nothing twice when the bus is down for 60 s while retries fall due', async () => {
      const { gate, clock, schedule } = await setup();
      const t0 = clock.now();
      const jobs = Array.from({ length: 150 }, (_, i) => job(i));
      // Due all through the outage, one every 400 ms.
      await schedule.add(jobs.map((j, i) => ({ job: j, dueAt: t0 + i * 400 })));
      gate.setDown(true);
      for (let t = 0; t <= OUTAGE_MS; t += 1_000) {
        clock.set(t0 + t);
        await expect(schedule.pump()).rejects.toThrow(/ECONNREFUSED/);
      }
      expect(gate.sent).toEqual([]);
      gate.setDown(false);
      // Taken during the outage: back after their lease, sent once the bus takes them.
      for (let t = OUTAGE_MS; t <= OUTAGE_MS + 2 * LEASE_MS; t += 1_000) {
        clock.set(t0 + t);
        while ((await schedule.pump()) > 0);
      }
      const ids = gate.sent.map((j) => j.delivery_id);
      expect(new Set(ids)).toEqual(new Set(jobs.map((j) => j.delivery_id)));
      expect(ids).toHaveLength(jobs.length);
      // Nothing is left to come back.
      clock.advance(10 * LEASE_MS);
      expect(await schedule.pump()).toBe(0);
    });

    it('sends entries written before jobs were stored beside their ids (the job in the id itself)', async () => {
      const { gate, clock, schedule, windows } = await setup();
      const old = job(7);
      await windows.schedule('webhooks', 'retry', [{ id: `a|${clock.now()}|${JSON.stringify(old)}`, dueAt: clock.now() }]);
      expect(await schedule.pump()).toBe(1);
      expect(gate.sent).toEqual([old]);
      clock.advance(10 * LEASE_MS);
      expect(await schedule.pump()).toBe(0);
    });

    it('schedules a 1 MB job like any other', async () => {
      const { gate, clock, schedule } = await setup();
      const big = job(1, { blob: 'x'.repeat(1_048_576) });
      await schedule.add([{ job: big, dueAt: clock.now() + 5 }]);
      clock.advance(5);
      expect(await schedule.pump()).toBe(1);
      expect(gate.sent).toEqual([big]);
    });
  });
}

scheduleSuite('embedded window store (LMDB)', async () => createLmdbWindowStore({ dir: path.join(await mkdtemp(path.join(os.tmpdir(), 'weir-retry-lmdb-')), 'state.lmdb') }));

describe.skipIf(!shouldRun('redisUrl'))('on Redis', () => {
  scheduleSuite('Redis window store', async () => createRedisWindowStore({ url: requireAddress('redisUrl'), keyPrefix: `retry-test-${randomUUID()}:` }));
});
