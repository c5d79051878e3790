/**
 * Soak of one process under mixed load: `node --expose-gc --import tsx bench/soak.ts <embedded|redis>`.
 * Weir runs in this process (counters and rule engine, embedded defaults, or Kafka + Redis with
 * WEIR_TEST_KAFKA_BROKERS / WEIR_TEST_REDIS_URL); two forked clients load it: counter events in
 * batches of 500 at WEIR_SOAK_RATE events/s (default 4,000) and transactions at 200/s (a rule that
 * reads two counters). First the transactions alone (WEIR_SOAK_BASELINE_SECONDS, default 30), then
 * both for WEIR_SOAK_SECONDS (default 180). Reports the transactions' p99 in both phases, the
 * longest event-loop delay (perf_hooks, 1 ms resolution), memory growth per million events
 * (process RSS; plus Redis used_memory on Redis, LMDB file size embedded) and bytes per remembered
 * id and per active entity, with the extrapolation to 24 hours at 20,000 events/s.
 */
import './scratch.js';
import { fork } from 'node:child_process';
import { mkdtemp, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { startProcess } from '../app/start.js';
import { countersService, createCounterReader } from '../services/counters.js';
import { rulesService } from '../services/rules.js';
import type { LoadJob, LoadReport } from './counters-load.js';
import type { TransactionJob } from './soak-transactions.js';

const mode = process.argv[2] === 'redis' ? 'redis' : 'embedded';
const RATE = Number(process.env.WEIR_SOAK_RATE ?? 4_000);
const SECONDS = Number(process.env.WEIR_SOAK_SECONDS ?? 180);
const BASELINE_SECONDS = Number(process.env.WEIR_SOAK_BASELINE_SECONDS ?? 30);
const TX_RATE = 200;
const BATCH = 500;
const ENTITIES = 100_000;
const ORG = 'soak';
const KEY = 'soak-key';
const redisUrl = process.env.WEIR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const kafka = process.env.WEIR_TEST_KAFKA_BROKERS;

function child<J extends object, R>(file: string) {
  const c = fork(fileURLToPath(new URL(file, import.meta.url)), { execArgv: ['--import', 'tsx'] });
  return {
    run: (job: J) =>
      new Promise<R>((resolve, reject) => {
        c.once('message', (m: { ok: boolean; error?: string } & R) => (m.ok ? resolve(m) : reject(new Error(m.error))));
        c.send(job as Parameters<typeof c.send>[0]);
      }),
    stop: () => c.kill(),
  };
}

const p99 = (sorted: number[]) => sorted[Math.floor(0.99 * (sorted.length - 1))] ?? NaN;

async function redisUsed(): Promise<number> {
  const r = new Redis(redisUrl);
  const info = await r.info('memory');
  await r.quit();
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

/** Blocks in use by the LMDB file (lmdb keeps the environment in one file at its path, grown ahead of its use). */
async function lmdbBytes(file: string): Promise<number> {
  try {
    return (await stat(file)).blocks * 512;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-soak-'));
  const env: Record<string, string> = { DATA_DIR: dir, API_KEYS: `${ORG}:${KEY}`, LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '100000000', PORT: '0' };
  if (mode === 'redis') Object.assign(env, { REDIS_URL: redisUrl, KAFKA_BROKERS: kafka ?? '127.0.0.1:19092' });
  const weir = await startProcess({ role: 'all', env, services: [countersService, rulesService({ counters: createCounterReader })] });
  const url = weir.url!;
  const h = { 'content-type': 'application/json', 'x-api-key': KEY, 'x-org-id': ORG };
  const put = await fetch(`${url}/v1/counters/${ORG}`, {
    method: 'PUT',
    headers: h,
    body: JSON.stringify({
      counters: [
        { name: 'txn_1h', event_type: 'txn', aggregate: 'count', window: { amount: 1, unit: 'hours' } },
        { name: 'amount_24h', event_type: 'txn', aggregate: 'sum', window: { amount: 24, unit: 'hours' } },
        { name: 'last_txn', event_type: 'txn', aggregate: 'last_seen' },
      ],
    }),
  });
  if (put.status !== 200) throw new Error(`counters config: ${put.status}`);
  const rule = await fetch(`${url}/rules/${ORG}`, {
    method: 'POST',
    headers: h,
    body: JSON.stringify({
      name: 'velocity',
      description: 'soak',
      threshold: 1,
      evaluations: [{ name: 'v', expression: 'entity_counters.txn_1h > 10 OR entity_counters.amount_24h > 5000', weight: 1 }],
      actions: [{ type: 'flag', description: 'review' }],
    }),
  });
  if (rule.status >= 300) throw new Error(`rule: ${rule.status} ${await rule.text()}`);

  const tx = child<TransactionJob, { latencies: number[]; failures: Record<string, number> }>('./soak-transactions.ts');
  const load = child<LoadJob, { report: LoadReport }>('./counters-load.ts');
  const txJob = (seconds: number): TransactionJob => ({ url, org: ORG, apiKey: KEY, rate: TX_RATE, seconds, entities: ENTITIES });
  try {
    const { latencies: baseline, failures: baselineFailures } = await tx.run(txJob(BASELINE_SECONDS));

    const delay = monitorEventLoopDelay({ resolution: 1 });
    const rss0 = process.memoryUsage().rss;
    const redis0 = mode === 'redis' ? await redisUsed() : 0;
    const disk0 = await lmdbBytes(path.join(dir, 'windows', 'state.lmdb'));
    const batches = Math.floor((RATE * SECONDS) / BATCH);
    delay.enable();
    const [soak, loadReport] = await Promise.all([
      tx.run(txJob(SECONDS)),
      load.run({ url, org: ORG, apiKey: KEY, run: `soak${Date.now()}`, from: 0, count: batches, size: BATCH, entityPrefix: 'e', entityModulo: ENTITIES, occurredAt: new Date().toISOString(), pace: { everyMs: (1000 * BATCH) / RATE } }),
    ]);
    delay.disable();
    const events = batches * BATCH;
    const sentSeconds = (Math.max(...Object.values(loadReport.report.sentAt)) - Math.min(...Object.values(loadReport.report.sentAt))) / 1000;
    const rssGrowth = process.memoryUsage().rss - rss0;
    const storeGrowth = mode === 'redis' ? (await redisUsed()) - redis0 : (await lmdbBytes(path.join(dir, 'windows', 'state.lmdb'))) - disk0;
    const perMillion = (b: number) => (b / events) * 1e6;
    const day = 20_000 * 86_400;
    console.log(`| mode | ${mode === 'redis' ? 'Kafka + Redis' : 'embedded (embedded log, LMDB)'} |`);
    console.log(`| counter events posted | ${events.toLocaleString('en-US')} in ${sentSeconds.toFixed(0)} s (${Math.round(events / sentSeconds).toLocaleString('en-US')}/s offered) |`);
    console.log(`| transactions p99, alone / under the counter load | ${p99(baseline).toFixed(1)} ms / ${p99(soak.latencies).toFixed(1)} ms (${soak.latencies.length} answered; failed alone ${JSON.stringify(baselineFailures)}, under load ${JSON.stringify(soak.failures)}) |`);
    console.log(`| longest event-loop delay during the soak | ${(delay.max / 1e6).toFixed(1)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms) |`);
    console.log(`| process RSS growth | ${(rssGrowth / 2 ** 20).toFixed(0)} MiB, ${(perMillion(rssGrowth) / 2 ** 20).toFixed(1)} MiB per million events |`);
    console.log(`| ${mode === 'redis' ? 'Redis used_memory' : 'LMDB file (on disk, not heap)'} growth | ${(storeGrowth / 2 ** 20).toFixed(0)} MiB, ${(storeGrowth / events).toFixed(1)} B per event (ids and ${ENTITIES.toLocaleString('en-US')} entities) |`);
    console.log(`| extrapolated to 24 h at 20,000/s (ids for the 24-30 h id window) | ${((storeGrowth / events) * day / 2 ** 30).toFixed(0)} GiB of ${mode === 'redis' ? 'Redis' : 'disk'} |`);
  } finally {
    tx.stop();
    load.stop();
    await weir.stop();
  }
}

await main();
