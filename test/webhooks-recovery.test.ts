import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kill, spawnFixture, type Child } from './fixtures/bus-crash-harness.js';
import { startReceiver, type Receiver } from './fixtures/webhook-receiver.js';
import { runStarted, webhooksClient } from './fixtures/webhooks-client.js';
import { waitFor } from './fixtures/counters-http.js';
import { realInfra, requireAddress, shouldRun } from './support/infra.js';

/**
 * Recovery of the delivery pipeline: a target disabled after persistent failures and enabled again
 * by a successful delivery, and a worker SIGKILLed while its retries wait in the schedule.
 */

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx?.close());

async function startChild(env: Record<string, string>) {
  const child = spawnFixture('./webhooks-child.ts', env);
  const url = (await child.line('ready', (l) => l.startsWith('READY '))).slice('READY '.length);
  return { child, url };
}

async function baseEnv(extra: Record<string, string>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-webhooks-'));
  return {
    DATA_DIR: path.join(dir, 'data'),
    CHDB_PATH: path.join(dir, 'clickhouse'),
    API_KEYS: 'org_r:key_r',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...extra,
  };
}

const idOf = (h: { headers: Record<string, unknown> }) => String(h.headers['x-service-delivery-id']);

describe('target disable and enable', () => {
  it('disables a target failing for WEBHOOK_DISABLE_AFTER_MS; its next successful delivery enables it', async () => {
    const { child, url } = await startChild(await baseEnv({ WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_CIRCUIT_OPEN_MS: '200', WEBHOOK_DISABLE_AFTER_MS: '500' }));
    try {
      const c = webhooksClient(url, 'org_r', 'key_r');
      let healthy = false;
      rx.reply('/flaky', () => ({ status: healthy ? 200 : 500 }));
      const id = (await c.register({ event: 'workflow_run_started', url: rx.url('/flaky') })).body.id as string;
      const [first] = (await c.emit('workflow_run_started', runStarted('d1'))).body.delivery_ids as string[];
      const disabled = await waitFor(async () => (await c.get(id)).body, (r) => r.enabled === false);
      expect(disabled.disabled_reason).toMatch(/failed without a success for 500 ms/);

      // While disabled, new events are logged as skipped and not sent.
      const [second] = (await c.emit('workflow_run_started', runStarted('d2'))).body.delivery_ids as string[];
      await waitFor(async () => (await c.deliveries(id, `?delivery_id=${second}`)).body.data as { status: string }[], (d) => d.some((a) => a.status === 'skipped'));
      expect(rx.hits('/flaky').some((h) => idOf(h) === second)).toBe(false);

      healthy = true;
      expect((await c.redeliver(id, first!)).status).toBe(202);
      await waitFor(async () => (await c.get(id)).body, (r) => r.enabled === true && r.disabled_reason === null);
      expect(rx.hits('/flaky').filter((h) => idOf(h) === first).length).toBeGreaterThan(1);
      // The missed delivery can be sent now.
      expect((await c.redeliver(id, second!)).status).toBe(202);
      await waitFor(async () => rx.hits('/flaky').filter((h) => idOf(h) === second), (h) => h.length === 1);
    } finally {
      await kill(child, 'SIGKILL');
    }
  });
});

function crashSuite(name: string, infraEnv: () => Record<string, string>) {
  it(`${name}: a worker killed while retries wait loses nothing; a new one sends them with the same ids`, async () => {
    const at = `/crash-${Date.now()}`;
    const failedOnce = new Set<string>();
    // Every delivery fails its first attempt; later ones succeed.
    rx.reply(at, (_n, hit) => {
      const id = idOf(hit);
      if (failedOnce.has(id)) return { status: 200 };
      failedOnce.add(id);
      return { status: 503 };
    });
    const env = await baseEnv({ ...infraEnv(), WEBHOOK_RETRY_BASE_MS: '3000', WEBHOOK_CIRCUIT_OPEN_MS: '3000' });
    const children: Child[] = [];
    try {
      const first = await startChild(env);
      children.push(first.child);
      const c = webhooksClient(first.url, 'org_r', 'key_r');
      expect((await c.register({ event: 'workflow_run_completed', url: rx.url(at), secret: 'crash-test-secret' })).status).toBe(201);
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(...((await c.emit('workflow.completed', { run_id: `r${i}`, workflow_id: 'w', result: { i } })).body.delivery_ids as string[]));
      expect(ids).toHaveLength(20);
      // Three failures open the circuit: the rest wait in the schedule as deferrals, the failed ones as retries.
      await waitFor(async () => failedOnce.size, (n) => n >= 3);
      first.child.process.kill('SIGKILL');
      if (first.child.process.exitCode === null && first.child.process.signalCode === null) await once(first.child.process, 'exit');
      const hitsAtKill = rx.hits(at).length;

      const second = await startChild(env);
      children.push(second.child);
      const succeeded = () => new Set(rx.hits(at).filter((h, i, all) => all.slice(0, i).some((e) => idOf(e) === idOf(h))).map(idOf));
      // On Kafka the dead member's partitions move only after its session times out (10 s), and
      // retries it had taken come back after their lease (LEASE_MS, 30 s): allow both, and some.
      await waitFor(async () => succeeded().size, (n) => n === 20, 120_000);
      const hits = rx.hits(at);
      expect(hits.length).toBeGreaterThan(hitsAtKill);
      expect(new Set(hits.map(idOf))).toEqual(new Set(ids));
      // At least once, and no more than one extra attempt per delivery from the crash.
      for (const id of ids) expect(hits.filter((h) => idOf(h) === id).length).toBeLessThanOrEqual(3);
      await kill(second.child, 'SIGTERM');
      expect(second.child.process.exitCode, second.child.stderr()).toBe(0);
    } finally {
      await Promise.all(children.map((ch) => kill(ch, 'SIGKILL')));
    }
  }, 240_000);
}

describe('delivery worker crash', () => {
  crashSuite('embedded defaults', () => ({}));
});

describe.skipIf(!(shouldRun('kafkaBrokers') && shouldRun('redisUrl')))('delivery worker crash on real infrastructure', () => {
  // Topics, groups and Redis keys of its own (KAFKA_NAMESPACE, REDIS_KEY_PREFIX): other test files run
  // services on the same broker and Redis, and a webhooks service of theirs once took this run's retries.
  const namespace = `webhooks${Date.now()}`;
  crashSuite('Kafka + Redis', () => ({ KAFKA_BROKERS: requireAddress('kafkaBrokers'), KAFKA_NAMESPACE: namespace, REDIS_URL: requireAddress('redisUrl'), REDIS_KEY_PREFIX: namespace, ...(realInfra.clickhouseUrl ? { CLICKHOUSE_URL: realInfra.clickhouseUrl } : {}) }));
});
