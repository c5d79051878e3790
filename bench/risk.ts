/**
 * Risk check benchmark: `node --import tsx bench/risk.ts`. POST /v1/check with every
 * signal group fed (email, IP with geolocation and lists, phone, device, aggregated and raw
 * behavior, a user with sessions), against a Weir process running the risk service (API and the
 * risk.checks consumer) in a child process: on the embedded defaults, and on Kafka + Redis when
 * WEIR_BENCH_KAFKA_BROKERS / WEIR_TEST_KAFKA_BROKERS and the Redis address are set (ClickHouse
 * stays chDB). Open loop at 200 checks/s (latency from each request's scheduled time), the server's
 * CPU per check, a closed-loop maximum, and the window-store bytes per user. Writes bench/results/risk.md.
 */
import './scratch.js';
import { spawnBenchServer } from './bench-server.js';
import { damonState } from './damon.js';
import { openLoop, percentile } from './lib/open-loop.js';
import { cpuByThread, cpuMs } from './lib/proc-cpu.js';
import http from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { open } from 'lmdb';
import { startProcess } from '../app/start.js';
import { loadConfig } from '../infra/config.js';
import { createLogger } from '../infra/logger.js';
import { buildPlatform, closePlatform } from '../infra/build-platform.js';
import { runMigrations } from '../infra/analytics/index.js';
import { riskService, createRiskParts } from '../services/risk.js';
import { riskMigration } from '../pipelines/risk/migrations.js';
import { checkRequestSchema } from '../schemas/http/risk.js';

const RATE = 200;
const OPEN_LOOP_SECONDS = 20;
const OPEN_LOOP_RUNS = 2;
const CLOSED_LOOP_SECONDS = 8;
const CONCURRENCY = 16;
const USERS = 2_000;
const MEMORY_USERS = 2_000;
const CHECKS_PER_MEMORY_USER = 4;
const here = path.dirname(fileURLToPath(import.meta.url));
const LISTS = path.join(here, '..', 'test', 'fixtures', 'risk-lists');

/** Public IPv4 addresses spread over the address space (every geolocation lookup differs). */
const IPS = Array.from({ length: 500 }, (_, i) => `${[24, 31, 46, 62, 77, 81, 88, 91, 104, 151, 176, 185, 195, 203][i % 14]}.${(i * 37) % 250}.${(i * 91) % 250}.${(i % 200) + 1}`);

function checkBody(i: number) {
  const user = i % USERS;
  const t0 = 1_000;
  return {
    email: `user${user}.name@example.com`,
    ip: IPS[(user * 7 + Math.floor(i / USERS)) % IPS.length],
    phone: `+44791112${String(user).padStart(4, '0')}`,
    device: { user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0', fingerprint: { screen: { width: 1920, height: 1080, colorDepth: 24 }, timezone: 'Europe/London', language: 'en-GB', canvas: `cv${user % 1500}`, hardware: { cores: 8, memory: 8 } } },
    behavior: { mouseMovements: 200 + (i % 50), clickPattern: 'normal', keystrokeTimings: Array.from({ length: 20 }, (_, k) => 80 + ((k * 53 + i) % 140)), scrollBehavior: 'smooth', timeOnPage: 20_000 + (i % 9_000), formFillSpeed: 6_000 + (i % 3_000) },
    behavioral: {
      mouse: Array.from({ length: 30 }, (_, k) => ({ type: 'mousemove', x: 100 + k * 9 + ((k * k) % 7), y: 300 + Math.round(30 * Math.sin(k / 4)), timestamp: t0 + k * 16 + ((k * 13) % 9) })),
      keystrokes: Array.from({ length: 20 }, (_, k) => ({ key: 'a', type: 'keydown', timestamp: t0 + k * 110 + ((k * 31) % 60) })),
    },
    context: { action: (['login', 'payment', 'signup', 'profile_update'] as const)[i % 4], user_id: `user-${user}`, session_id: `s-${user}-${Math.floor(i / (USERS * 3))}` },
  };
}

async function server(): Promise<void> {
  const p = await startProcess({ role: 'all', env: process.env, services: [riskService()] });
  console.log(`URL ${p.url}`);
  process.once('SIGTERM', () => void p.stop().then(() => process.exit(0)));
}

/** WEIR_BENCH_CPU_PROF=<dir>: the server child writes a V8 CPU profile there when it stops (open it in Chrome's DevTools). */
const PROFILE_DIR = process.env.WEIR_BENCH_CPU_PROF;

const startServer = async (env: Record<string, string>) =>
  spawnBenchServer(
    import.meta.url,
    { ...env, DATA_DIR: await mkdtemp(path.join(tmpdir(), 'weir-bench-risk-server-')), RATE_LIMIT_PER_MINUTE: '100000000', RISK_LISTS_DIR: LISTS },
    PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(PROFILE_DIR)] : [],
  );

const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
function postCheck(base: string, org: string, key: string, body: unknown): Promise<void> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/v1/check`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'x-api-key': key, 'x-org-id': org } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}


interface Figures {
  mode: string;
  sent: number;
  failed: number;
  achieved: number;
  p50: number;
  p99: number;
  runP99: number[];
  max: number;
  serverCpuMs: number;
  mainThreadCpuMs: number;
  /** CPU ms per check by thread name, largest first. */
  threads: [string, number][];
  closedLoop: number;
  closedP99: number;
}

async function measure(mode: string, env: Record<string, string>): Promise<Figures> {
  const org = `bench_${Math.random().toString(36).slice(2, 8)}`;
  const key = `key_${org}`;
  const { url, child } = await startServer({ ...env, API_KEYS: `${org}:${key}` });
  try {
    const post = (i: number) => postCheck(url, org, key, checkBody(i));
    for (let i = 0; i < 1_000; i++) await post(i); // warm-up: JIT, IPv4 data, every user seen once
    const cpuBefore = await cpuMs(child.pid!);
    const mainBefore = await cpuMs(child.pid!, child.pid!);
    const threadsBefore = await cpuByThread(child.pid!);
    const latencies: number[] = [];
    const runP99: number[] = [];
    let failed = 0;
    let ms = 0;
    for (let run = 0; run < OPEN_LOOP_RUNS; run++) {
      const offset = 1_000 + run * RATE * OPEN_LOOP_SECONDS;
      const r = await openLoop({ rate: RATE, seconds: OPEN_LOOP_SECONDS, send: (i) => post(offset + i) });
      failed += r.failed;
      ms += r.ms;
      runP99.push(percentile(r.latencies, 0.99));
      latencies.push(...r.latencies);
    }
    const total = RATE * OPEN_LOOP_SECONDS * OPEN_LOOP_RUNS;
    const serverCpuMs = ((await cpuMs(child.pid!)) - cpuBefore) / total;
    const mainThreadCpuMs = ((await cpuMs(child.pid!, child.pid!)) - mainBefore) / total;
    const threads = [...(await cpuByThread(child.pid!))]
      .map(([name, ms]): [string, number] => [name, (ms - (threadsBefore.get(name) ?? 0)) / total])
      .filter(([, ms]) => ms >= 0.01)
      .sort((a, b) => b[1] - a[1]);
    latencies.sort((a, b) => a - b);
    const closed: number[] = [];
    const closedStart = performance.now();
    let n = 100_000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() - closedStart < CLOSED_LOOP_SECONDS * 1000) {
          const t0 = performance.now();
          await post(n++);
          closed.push(performance.now() - t0);
        }
      }),
    );
    closed.sort((a, b) => a - b);
    return {
      mode,
      sent: total,
      failed,
      achieved: latencies.length / (ms / 1000),
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      runP99,
      max: latencies.at(-1) ?? NaN,
      serverCpuMs,
      mainThreadCpuMs,
      threads,
      closedLoop: closed.length / ((performance.now() - closedStart) / 1000),
      closedP99: percentile(closed, 0.99),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/**
 * Window-store bytes per user: MEMORY_USERS users, CHECKS_PER_MEMORY_USER checks each (two
 * sessions, two devices, one IP and email each), through the real checker. LMDB: the pages the
 * main tree grew by (branch, leaf and overflow pages times the page size: what the entities and
 * once ids take on disk). Redis: MEMORY USAGE of every key naming the benchmark's organization.
 */
async function bytesPerUser(redisUrl?: string): Promise<number> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'weir-bench-risk-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RISK_LISTS_DIR: LISTS, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
  const platform = await buildPlatform(config, createLogger('silent'));
  const org = `bench_mem_${Math.random().toString(36).slice(2, 8)}`;
  try {
    await runMigrations(platform.analytics, config.CLICKHOUSE_DATABASE, [riskMigration]);
    await platform.bus.ensureTopics([{ topic: 'risk.checks', partitions: 1 }]);
    const parts = await createRiskParts(platform);
    const body = (u: number, k: number) => {
      const b = checkBody(u);
      return checkRequestSchema.parse({ ...b, ip: IPS[u % IPS.length], device: { ...b.device, fingerprint: { ...b.device.fingerprint, canvas: `m${u}-${k % 2}` } }, context: { ...b.context, user_id: `mem-${u}`, session_id: `m-${u}-${k >> 1}` } });
    };
    await parts.check(org, body(0, 0)); // loads the IPv4 data before the baseline
    const lmdbPages = () => {
      // lmdb-js shares one environment per path within a process: this handle sees the store's pages.
      const stats = open({ path: path.join(dataDir, 'windows', 'state.lmdb') }).getStats() as Record<string, number>;
      return (stats.treeBranchPageCount! + stats.treeLeafPageCount! + stats.overflowPages!) * stats.pageSize!;
    };
    const before = redisUrl ? 0 : lmdbPages();
    for (let k = 0; k < CHECKS_PER_MEMORY_USER; k++) for (let u = 1; u <= MEMORY_USERS; u++) await parts.check(org, body(u, k));
    parts.schedule.stop();
    if (!redisUrl) return (lmdbPages() - before) / MEMORY_USERS;
    const redis = new Redis(redisUrl);
    let bytes = 0;
    // Every key of the organization's scope (entities, once ids, claims) names the org, escaped or not; it is unique to this run.
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${org}*`, 'COUNT', 1000);
      cursor = next;
      for (const k of keys) bytes += Number(await redis.memory('USAGE', k));
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    await redis.quit();
    return bytes / MEMORY_USERS;
  } finally {
    await closePlatform(platform);
  }
}

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '-');

async function main(): Promise<void> {
  const kafka = process.env.WEIR_BENCH_KAFKA_BROKERS ?? process.env.WEIR_TEST_KAFKA_BROKERS;
  const redis = process.env.WEIR_BENCH_REDIS_URL ?? process.env.WEIR_TEST_REDIS_URL;
  const results: Figures[] = [await measure('embedded defaults (embedded log, LMDB window store, chDB)', {})];
  if (kafka && redis) results.push(await measure('Kafka + Redis (chDB for the tables)', { KAFKA_BROKERS: kafka, REDIS_URL: redis }));
  const memory = [{ store: 'LMDB (pages on disk)', bytes: await bytesPerUser() }];
  if (redis) memory.push({ store: 'Redis (MEMORY USAGE of every key)', bytes: await bytesPerUser(redis) });
  const load = loadavg()[0]!;
  const md = `## Risk check: POST /v1/check with every signal

Command: \`node --import tsx bench/risk.ts\` (Kafka + Redis measured when \`WEIR_BENCH_KAFKA_BROKERS\` or
\`WEIR_TEST_KAFKA_BROKERS\` and the Redis address are set). Date: ${new Date().toISOString().slice(0, 10)}. Machine: 2 cores,
Node ${process.version}; 1-minute load average ${fmt(load)} at the end (the benchmark's own load is about 2)${load > 3 ? ': **the machine was shared with other work**, so latencies include waiting for a core' : ''}; ${damonState()}. The server (risk service: API and the risk.checks consumer) is a child process; the load
generator shares the 2 cores with it.

Workload: each check carries email, IP (${IPS.length} public addresses: geolocation, ASN and lists), phone, device fingerprint,
aggregated behavior and raw mouse (30 events) and keystrokes (20 events), a user (${fmt(USERS, 0)} users) and a session; the IP
lists of test/fixtures/risk-lists. Open loop: ${RATE} checks/s for ${OPEN_LOOP_SECONDS} s, ${OPEN_LOOP_RUNS} runs, latency from each request's
scheduled time to the answer (which comes after the check is in the log). Closed loop: ${CONCURRENCY} clients back to back for ${CLOSED_LOOP_SECONDS} s.

| back end | sent | failed | achieved (checks/s) | p50 (ms) | p99 (ms) | p99 per run (ms) | max (ms) | server CPU per check (ms) | main thread CPU per check (ms) | closed loop (checks/s) | closed-loop p99 (ms) |
|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|
${results.map((r) => `| ${r.mode} | ${fmt(r.sent, 0)} | ${r.failed} | ${fmt(r.achieved)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.runP99.map((x) => fmt(x)).join(', ')} | ${fmt(r.max)} | ${fmt(r.serverCpuMs, 2)} | ${fmt(r.mainThreadCpuMs, 2)} | ${fmt(r.closedLoop)} | ${fmt(r.closedP99)} |`).join('\n')}

What the CPU figures allow on 2 otherwise idle cores (the main thread serves HTTP and scores; the process total includes
chDB, the log and the consumer): ${results.map((r) => `${r.mode.split(' (')[0]}: ${fmt(Math.min(1000 / r.mainThreadCpuMs, 2000 / r.serverCpuMs), 0)} checks/s`).join('; ')}.
Server CPU per check by thread (ms, open loop; threads that end during the run are not counted):
${results.map((r) => `${r.mode.split(' (')[0]}: ${r.threads.map(([name, ms]) => `${name} ${fmt(ms, 2)}`).join(', ')}`).join('; ')}.

Window-store bytes per user (${fmt(MEMORY_USERS, 0)} users, ${CHECKS_PER_MEMORY_USER} checks each in 2 sessions on 2 devices, each with its own IP and
email; the user's, IP's, email's and device's entities and once ids, all divided by the users):

| store | bytes per user |
|---|---:|
${memory.map((m) => `| ${m.store} | ${fmt(m.bytes, 0)} |`).join('\n')}
`;
  await writeFile(path.join(here, 'results', 'risk.md'), md);
  console.log(md);
}

if (process.env.WEIR_BENCH_SERVER === '1') await server();
else {
  await main();
  process.exit(0);
}
