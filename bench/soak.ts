/**
 * Soak of one process under mixed load: `node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/soak.ts <embedded|redis>`.
 * Weir runs in this process (counters and rule engine, embedded defaults, or Kafka + Redis with
 * WEIR_TEST_KAFKA_BROKERS / WEIR_TEST_REDIS_URL); two forked clients load it: counter events in
 * batches of 500 at WEIR_SOAK_RATE events/s (default 4,000) over 100,000 entities, and
 * transactions at 200/s (a rule that reads two counters). First 5 s of transactions to warm up
 * (reported as the cold start), then the transactions alone (WEIR_SOAK_BASELINE_SECONDS, default
 * 30), then both for WEIR_SOAK_SECONDS (default 600).
 * Reports the transactions' p99 in both phases, the longest event-loop delay (perf_hooks, 1 ms
 * resolution), the rate the pipeline settled (applied to the window store) beside the rate
 * offered, process RSS growth per million events, bytes per remembered id and per active entity
 * (Redis: MEMORY USAGE of the run's id keys and entity hashes; embedded: the LMDB pages in use,
 * shared out by the bytes of each keyspace's entries) and the extrapolation to 24 hours at 20,000
 * events/s. Prints a Markdown block ready for bench/RESULTS.md.
 */
import './scratch.js';
import { requireStartNodeOptions } from './bench-server.js';
import { damonState } from './damon.js';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { open } from 'lmdb';
import { startProcess } from '../app/start.js';
import { countersService, createCounterReader } from '../services/counters.js';
import { rulesService } from '../services/rules.js';
import type { LoadJob, LoadReport } from './counters-load.js';
import { p99, type TransactionJob, type TransactionReport } from './soak-transactions.js';
import { keyBytes } from './event-ids.js';
import { bucketQuantiles, buckets } from './lib/histogram.js';
import { forkedJob } from './forked-job.js';
import { configureSoakOrg, countApplied, SOAK_LOAD } from './soak-setup.js';

requireStartNodeOptions();
const mode = process.argv[2] === 'redis' ? 'redis' : 'embedded';
const RATE = Number(process.env.WEIR_SOAK_RATE ?? SOAK_LOAD.eventRate);
const SECONDS = Number(process.env.WEIR_SOAK_SECONDS ?? 600);
const BASELINE_SECONDS = Number(process.env.WEIR_SOAK_BASELINE_SECONDS ?? 30);
const { txRate: TX_RATE, warmUpSeconds: WARM_UP_SECONDS, batch: BATCH, entities: ENTITIES } = SOAK_LOAD;
const ORG = `soak${Date.now().toString(36)}`;
const DRAIN_MS = 300_000;
const KEY = 'soak-key';
const redisUrl = process.env.WEIR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const kafka = process.env.WEIR_TEST_KAFKA_BROKERS;

/** The event loop's thread: its CPU time and its time runnable but waiting for a core, ms (Linux schedstat). */
async function mainThreadSched(): Promise<{ runMs: number; waitMs: number }> {
  const [run, wait] = (await readFile(`/proc/self/task/${process.pid}/schedstat`, 'utf8')).split(' ').map(Number);
  return { runMs: run! / 1e6, waitMs: wait! / 1e6 };
}

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

interface StateBytes {
  ids: number;
  idBytes: number;
  entities: number;
  entityBytes: number;
}

/**
 * LMDB (after the process closed it): the pages of the tree in use, shared out between event ids
 * ('i' and 'm' keyspaces) and entities with their queues ('e', 'q', 'Q') by the bytes of their
 * entries (key, value and LMDB's 8-byte node header).
 */
function lmdbStateBytes(file: string): StateBytes {
  const db = open({ path: file, keyEncoding: 'binary', encoding: 'binary', readOnly: true });
  const raw = { ids: 0, entities: 0, other: 0 };
  let ids = 0;
  let entities = 0;
  for (const { key, value } of db.getRange({})) {
    const k = key as Buffer;
    const bytes = k.length + (value as Buffer).length + 8;
    const space = String.fromCharCode(k[0]!);
    if (space === 'i' || space === 'm') raw.ids += bytes;
    else if (space === 'e' || space === 'q' || space === 'Q') raw.entities += bytes;
    else raw.other += bytes;
    if (space === 'i') ids++;
    if (space === 'e') entities++;
  }
  const st = db.getStats() as { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
  const used = (st.treeBranchPageCount + st.treeLeafPageCount + st.overflowPages) * st.pageSize;
  const total = raw.ids + raw.entities + raw.other;
  void db.close();
  return { ids, idBytes: (used * raw.ids) / total, entities, entityBytes: (used * raw.entities) / total };
}

/** Redis: MEMORY USAGE of the run's id buckets, and of its entity hashes and flush queues. */
async function redisStateBytes(): Promise<StateBytes> {
  const r = new Redis(redisUrl);
  try {
    const ids = await keyBytes(r, `w:j:{${ORG}}:*`);
    let idCount = 0;
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `w:j:{${ORG}}:*:*:*`, 'COUNT', 10_000);
      cursor = next;
      const p = r.pipeline();
      for (const k of keys) p.hlen(k);
      // Each bucket holds its two marks (o, l) beside its ids (scripts.ts IDS).
      for (const [, n] of (await p.exec()) ?? []) idCount += Number(n) - 2;
    } while (cursor !== '0');
    const entities = await keyBytes(r, `w:{${ORG}:*}`);
    const queues = await keyBytes(r, `w:{q:${ORG}:*}`);
    return { ids: idCount, idBytes: ids.bytes, entities: entities.keys, entityBytes: entities.bytes + queues.bytes };
  } finally {
    r.disconnect();
  }
}

/** Removes the run's keys from the shared Redis (ids would stay for a day). */
async function cleanRedis(): Promise<void> {
  const r = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `w:*${ORG}*`, 'COUNT', 10_000);
    cursor = next;
    if (keys.length > 0) await r.unlink(...keys);
  } while (cursor !== '0');
  r.disconnect();
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-soak-'));
  const lmdbFile = path.join(dir, 'windows', 'state.lmdb');
  const env: Record<string, string> = { DATA_DIR: dir, API_KEYS: `${ORG}:${KEY}`, LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '100000000', PORT: '0' };
  if (mode === 'redis') Object.assign(env, { REDIS_URL: redisUrl, KAFKA_BROKERS: kafka ?? '127.0.0.1:19092' });
  const weir = await startProcess({ role: 'all', env, services: [countersService, rulesService({ counters: createCounterReader })] });
  const url = weir.url!;
  let stopping: Promise<void> | undefined;
  const stopWeir = () => (stopping ??= weir.stop());
  // Counts what the pipeline applied, to tell the settled rate from the offered one.
  const applied = countApplied(weir.platform.windows, ORG);
  await configureSoakOrg(url, ORG, KEY);

  const tx = forkedJob<TransactionJob, TransactionReport>(new URL('./soak-transactions.ts', import.meta.url));
  const load = forkedJob<LoadJob, { report: LoadReport }>(new URL('./counters-load.ts', import.meta.url));
  const txJob = (seconds: number): TransactionJob => ({ url, org: ORG, apiKey: KEY, rate: TX_RATE, seconds, entities: ENTITIES });
  try {
    const load0 = os.loadavg()[0]!;
    // The first second is the organization's cold start (its rules compiled, its log topics
    // opened), reported apart: the phases below measure the steady state.
    const { latencies: cold } = await tx.run(txJob(WARM_UP_SECONDS));
    const { latencies: baseline, failures: baselineFailures } = await tx.run(txJob(BASELINE_SECONDS));

    const serverHistograms = () => Promise.all(['weir_rules_decide_seconds', 'weir_rules_publish_seconds'].map((name) => buckets(url, name)));
    const histograms0 = await serverHistograms();
    const delay = monitorEventLoopDelay({ resolution: 1 });
    const rss0 = process.memoryUsage().rss;
    const sched0 = await mainThreadSched();
    const redis0 = mode === 'redis' ? await redisUsed() : 0;
    const disk0 = await lmdbBytes(lmdbFile);
    const batches = Math.floor((RATE * SECONDS) / BATCH);
    delay.enable();
    // The longest delay of each minute, to tell a steady tail from one that grows with the state.
    const minuteMaxDelays: number[] = [];
    const perMinute = setInterval(() => {
      minuteMaxDelays.push(delay.max / 1e6);
      delay.reset();
    }, 60_000);
    const [soak, loadReport] = await Promise.all([
      tx.run(txJob(SECONDS)),
      load.run({ url, org: ORG, apiKey: KEY, run: ORG, from: 0, count: batches, size: BATCH, entityPrefix: 'e', entityModulo: ENTITIES, occurredAt: new Date().toISOString(), pace: { everyMs: (1000 * BATCH) / RATE } }),
    ]);
    const [decide, publish] = (await serverHistograms()).map((after, i) => bucketQuantiles(histograms0[i]!, after));
    clearInterval(perMinute);
    minuteMaxDelays.push(delay.max / 1e6);
    delay.disable();
    const loadEnd = os.loadavg()[0]!;
    const events = batches * BATCH;
    const sent = Object.values(loadReport.report.sentAt);
    const sentSeconds = (Math.max(...sent) - Math.min(...sent)) / 1000;
    const settledAtEnd = applied();
    const drainStart = performance.now();
    while (applied() < events && performance.now() - drainStart < DRAIN_MS) await new Promise((r) => setTimeout(r, 200));
    const drainSeconds = (performance.now() - drainStart) / 1000;
    const rssGrowth = process.memoryUsage().rss - rss0;
    const sched1 = await mainThreadSched();
    const [mainRun, mainWait] = [(sched1.runMs - sched0.runMs) / 1000, (sched1.waitMs - sched0.waitMs) / 1000];
    const storeGrowth = mode === 'redis' ? (await redisUsed()) - redis0 : (await lmdbBytes(lmdbFile)) - disk0;
    tx.stop();
    load.stop();
    await stopWeir();
    const state = mode === 'redis' ? await redisStateBytes() : lmdbStateBytes(lmdbFile);
    if (mode === 'redis') await cleanRedis();

    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    const perMillion = (b: number) => (b / events) * 1e6;
    const perId = state.idBytes / Math.max(1, state.ids);
    const perEntity = state.entityBytes / Math.max(1, state.entities);
    // Ids of a 24-hour window are kept 24 to 30 hours (six-hour slots), at 20,000 events/s.
    const dayIds = [20_000 * 86_400, 20_000 * 108_000];
    const where = mode === 'redis' ? 'Redis' : 'LMDB file (disk and page cache, not heap)';
    const lines = [
      `Command: \`WEIR_SOAK_SECONDS=${SECONDS} WEIR_SOAK_BASELINE_SECONDS=${BASELINE_SECONDS} WEIR_SOAK_RATE=${RATE} node ${process.execArgv.join(' ')} bench/soak.ts ${mode}\`  `,
      `Date: ${new Date().toISOString()}. Machine: nproc ${os.availableParallelism()}, Node ${process.version}; 1-minute load average ${load0.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end of the soak; ${damonState()}`,
      '',
      `| ${mode === 'redis' ? 'Kafka + Redis' : 'embedded (embedded log, LMDB)'} | |`,
      '|---|---|',
      `| counter events offered | ${fmt(events)} in ${sentSeconds.toFixed(0)} s (${fmt(events / sentSeconds)}/s), ${fmt(ENTITIES)} entities, 3 counters each |`,
      `| settled (applied to the window store) | ${fmt(settledAtEnd)} by the end of the soak (${fmt(settledAtEnd / sentSeconds)}/s); all ${applied() >= events ? `${fmt(events)} ${drainSeconds.toFixed(0)} s later` : `not settled after ${drainSeconds.toFixed(0)} s: ${fmt(applied())}`} |`,
      `| transactions at ${TX_RATE}/s, p99 alone (${BASELINE_SECONDS} s) / under the counter load | **${p99(baseline).toFixed(1)} ms / ${p99(soak.latencies).toFixed(1)} ms** (target under load: 20 ms; ${fmt(soak.latencies.length)} answered; failed alone ${JSON.stringify(baselineFailures)}, under load ${JSON.stringify(soak.failures)}) |`,
      `| transactions' cold start (the first ${WARM_UP_SECONDS} s, before the phases above) | p99 ${p99(cold).toFixed(1)} ms, slowest ${cold.at(-1)!.toFixed(1)} ms |`,
      `| server side under the load, p50 / p99 (histogram bucket bounds): evaluation / waiting for the log | ≤${decide![0]} / ≤${decide![1]} ms; ≤${publish![0]} / ≤${publish![1]} ms |`,
      `| transactions' p99 of each minute under the load (ms) | ${soak.minuteP99s.map((v) => v.toFixed(1)).join(', ')} |`,
      `| longest event-loop delay during the soak | **${Math.max(...minuteMaxDelays).toFixed(1)} ms** (target: none over 50 ms) |`,
      `| longest event-loop delay of each minute (ms) | ${minuteMaxDelays.map((v) => v.toFixed(1)).join(', ')} |`,
      `| event-loop thread during the load and drain: on a core / runnable but waiting for one | ${mainRun.toFixed(0)} s / ${mainWait.toFixed(0)} s (load average ${loadEnd.toFixed(1)} on ${os.availableParallelism()} cores at the end) |`,
      `| process RSS growth | ${fmt(rssGrowth / 2 ** 20)} MiB, ${(perMillion(rssGrowth) / 2 ** 20).toFixed(1)} MiB per million events |`,
      `| ${where} growth | ${fmt(storeGrowth / 2 ** 20)} MiB, ${fmt(storeGrowth / events)} B per event |`,
      `| bytes per remembered id (${fmt(state.ids)} ids) | ${perId.toFixed(1)} B |`,
      `| bytes per active entity (${fmt(state.entities)} entities, with their flush queue entries) | ${fmt(perEntity)} B |`,
      `| 24 h at 20,000 events/s: ids (24-30 h kept) + 1 million active entities | ${((dayIds[0]! * perId + 1e6 * perEntity) / 2 ** 30).toFixed(0)}-${((dayIds[1]! * perId + 1e6 * perEntity) / 2 ** 30).toFixed(0)} GiB of ${mode === 'redis' ? 'Redis' : 'LMDB file'}; process RSS growth at this run's rate per event: ${((perMillion(rssGrowth) * dayIds[0]!) / 1e6 / 2 ** 30).toFixed(0)} GiB |`,
    ];
    console.log(lines.join('\n'));
  } finally {
    tx.stop();
    load.stop();
    await stopWeir();
  }
}

await main();
