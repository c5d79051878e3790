import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kill, spawnFixture, type Child } from './fixtures/bus-crash-harness.js';
import { countersClient, waitFor } from './fixtures/counters-http.js';
import { realInfra, requireAddress, shouldRun } from './support/infra.js';

/**
 * The counter pipeline's crash test: events arrive over HTTP while the pipeline consumes them; the
 * process is SIGKILLed right after a window-store apply, before that batch is queued for flushing
 * and committed. A new process on the same data finishes; clients resend the batches whose answer
 * they never got (and one they did, as a careless retry). Live values and ClickHouse rows must then
 * equal the values computed from the events taken once each.
 */

const ENTITIES = 200;
const BATCHES = 40;
const BATCH_SIZE = 500;

interface Expected {
  n_events: number;
  amount_sum: number;
  last_event: string;
}

function makeEvents(runId: string, now: number) {
  const batches = Array.from({ length: BATCHES }, (_, b) =>
    Array.from({ length: BATCH_SIZE }, (_, i) => {
      const n = b * BATCH_SIZE + i;
      const pay = n % 3 === 0;
      return {
        event_id: `${runId}-${n}`,
        entity_id: `ent-${n % ENTITIES}`,
        event_type: pay ? 'pay' : 'visit',
        occurred_at: new Date(now - 600_000 + (n % 600) * 1000).toISOString(),
        ...(pay ? { value: 1 + (n % 7) } : {}),
      };
    }),
  );
  const expected = new Map<string, Expected>();
  for (const e of batches.flat()) {
    const x = expected.get(e.entity_id) ?? { n_events: 0, amount_sum: 0, last_event: '' };
    if (e.event_type === 'pay') x.amount_sum += e.value ?? 0;
    else {
      x.n_events++;
      if (e.occurred_at > x.last_event) x.last_event = e.occurred_at;
    }
    expected.set(e.entity_id, x);
  }
  return { batches, expected };
}

const config = {
  flush_interval_seconds: 1,
  counters: [
    { name: 'n_events', event_type: 'visit', aggregate: 'count', window: { amount: 1, unit: 'hours' } },
    { name: 'amount_sum', event_type: 'pay', aggregate: 'sum', window: { amount: 1, unit: 'hours' } },
    { name: 'last_event', event_type: 'visit', aggregate: 'last_seen' },
  ],
};

function crashSuite(name: string, infraEnv: () => Record<string, string>) {
  it(`${name}: live values and table rows count every event once after a SIGKILL mid-batch`, async () => {
    const runId = `crash${Date.now()}`;
    const org = `org_${runId}`;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-counters-crash-'));
    const env = {
      ...infraEnv(),
      // Topics and groups of its own: another test file's counters service on the same broker
      // would otherwise join the group weir.counters and take partitions of this run's events.
      KAFKA_NAMESPACE: runId,
      DATA_DIR: path.join(dir, 'data'),
      CHDB_PATH: path.join(dir, 'clickhouse'),
      // A key of its own and no edge limit in reach: the live-value polls below send 200 requests
      // each, and on a slow machine a minute of them passed the default 60,000 a minute, so every
      // poll answered 429 until the wait timed out (the key is counted across processes in Redis).
      API_KEYS: `${org}:key_${runId}`,
      RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'warn',
    };
    const { batches, expected } = makeEvents(runId, Date.now());

    const children: Child[] = [];
    const start = async (extra: Record<string, string>) => {
      const child = spawnFixture('./counters-crash-child.ts', { ...env, ...extra });
      children.push(child);
      const url = (await child.line('ready', (l) => l.startsWith('READY '))).slice('READY '.length);
      return { child, url, c: countersClient(url, org, `key_${runId}`) };
    };
    try {
      // The crash comes once a quarter of the events were applied: some batches answered, most not.
      const first = await start({ WEIR_COUNTERS_CRASH_AFTER: String((BATCHES * BATCH_SIZE) / 4) });
      expect((await first.c.putConfig(config)).status).toBe(200);
      const acknowledged = new Set<number>();
      /** Undefined when the connection failed (the process died under the request); any answer but 202 fails the test. */
      const send = async (c: ReturnType<typeof countersClient>, b: number) => {
        const res = await c.postBatch(batches[b]!).catch(() => undefined);
        if (!res) return undefined;
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        acknowledged.add(b);
        return res.body.data as { accepted: number; duplicates: number };
      };
      const sendOrFail = async (c: ReturnType<typeof countersClient>, b: number) => {
        const data = await send(c, b);
        if (!data) throw new Error(`batch ${b} got no answer from the process that did not crash`);
        return data;
      };
      // Two requests in flight at a time until the process dies under them. Each sender pauses
      // between batches so the pipeline keeps up with the intake even on a loaded machine: the crash
      // must come while batches are still unsent, or there is nothing to resend.
      let next = 0;
      await Promise.all(
        [0, 1].map(async () => {
          while (next < BATCHES) {
            const b = next++;
            if (!(await send(first.c, b))) return;
            await new Promise((r) => setTimeout(r, 100));
          }
        }),
      );
      if (first.child.process.exitCode === null && first.child.process.signalCode === null) await once(first.child.process, 'exit');
      expect(first.child.lines.some((l) => l.startsWith('CRASH'))).toBe(true);
      expect(acknowledged.size).toBeLessThan(BATCHES);
      expect(acknowledged.size).toBeGreaterThan(0);

      const second = await start({});
      const resent = [...acknowledged][0]!;
      for (let b = 0; b < BATCHES; b++) if (!acknowledged.has(b)) await sendOrFail(second.c, b);
      // A client that resends a batch it already had answered: every id is a duplicate.
      expect(await sendOrFail(second.c, resent)).toEqual({ accepted: 0, duplicates: BATCH_SIZE, rejected: [] });

      const want = (id: string) => expected.get(id)!;
      const liveAll = async () => Promise.all([...expected.keys()].map(async (id) => [id, (await second.c.realtime(id)).body.data?.counters] as const));
      const live = await waitFor(liveAll, (all) => all.every(([id, v]) => JSON.stringify(v) === JSON.stringify(want(id))), 120_000);
      expect(live).toHaveLength(ENTITIES);

      const rowsOf = async () => (await (await fetch(`${second.url}/test/rows/${org}`)).json()) as Record<string, unknown>[];
      const rows = await waitFor(
        rowsOf,
        (r) => r.length === ENTITIES && r.every((row) => row.n_events === want(String(row.entity_id)).n_events && row.amount_sum === want(String(row.entity_id)).amount_sum),
        120_000,
      );
      for (const row of rows) {
        const w = want(String(row.entity_id));
        expect(row).toMatchObject({ n_events: w.n_events, amount_sum: w.amount_sum });
        expect(`${String(row.last_event).replace(' ', 'T')}Z`).toBe(w.last_event);
      }
      await kill(second.child, 'SIGTERM');
      expect(second.child.process.exitCode, second.child.stderr()).toBe(0);
    } finally {
      await Promise.all(children.map((c) => kill(c, 'SIGKILL')));
    }
  }, 300_000);
}

describe('counter pipeline crash test', () => {
  crashSuite('embedded defaults', () => ({}));
});

describe.skipIf(!(shouldRun('kafkaBrokers') && shouldRun('redisUrl')))('counter pipeline crash test on real infrastructure', () => {
  crashSuite('Kafka + Redis + ClickHouse engine', () => ({
    KAFKA_BROKERS: requireAddress('kafkaBrokers'),
    REDIS_URL: requireAddress('redisUrl'),
    ...(realInfra.clickhouseUrl ? { CLICKHOUSE_URL: realInfra.clickhouseUrl } : {}),
  }));
});

describe.skipIf(!(shouldRun('kafkaBrokers') && shouldRun('redisClusterUrl')))('counter pipeline crash test on a Redis Cluster', () => {
  crashSuite('Kafka + Redis Cluster + ClickHouse engine', () => ({
    KAFKA_BROKERS: requireAddress('kafkaBrokers'),
    REDIS_URL: requireAddress('redisClusterUrl'),
    ...(realInfra.clickhouseUrl ? { CLICKHOUSE_URL: realInfra.clickhouseUrl } : {}),
  }));
});
