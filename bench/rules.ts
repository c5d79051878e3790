/**
 * Rule-engine benchmark: `npx tsx bench/rules.ts`. POST /transaction with 50 active rules that
 * read counters and a lookup table, against a Weir process (role all: API plus the decisions
 * consumer) in a child process, once on the embedded defaults and once on real Kafka + Redis
 * (WEIR_BENCH_KAFKA_BROKERS, default 127.0.0.1:19092; WEIR_BENCH_REDIS_URL, default
 * redis://127.0.0.1:6379; ClickHouse stays chDB: no server runs here). Measures latency at a
 * fixed 500 transactions/s (open loop, from each request's scheduled time, so a stall counts
 * against every request behind it) and the closed-loop maximum. Writes bench/results/rules.md.
 */
import './scratch.js';
import { spawnBenchServer } from './bench-server.js';
import http from 'node:http';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { startProcess } from '../app/start.js';
import { loadConfig } from '../infra/config.js';
import { createLogger } from '../infra/logger.js';
import { buildPlatform, closePlatform } from '../infra/build-platform.js';
import { runMigrations } from '../infra/analytics/index.js';
import { tableBody } from '../schemas/http/rules.js';
import { createDefinitions } from '../pipelines/rules/definitions.js';
import { createEngine } from '../pipelines/rules/engine.js';
import { rulesMigrations } from '../pipelines/rules/migrations.js';
import { createTableData } from '../pipelines/rules/table-data.js';
import type { CounterReader } from '../pipelines/ports.js';
import { countersService, createCounterReader } from '../services/counters.js';
import { rulesService } from '../services/rules.js';
import { bucketQuantiles, buckets } from './lib/histogram.js';
import { cpuMs } from './lib/proc-cpu.js';
import { openLoop, percentile } from './lib/open-loop.js';
import { ACCOUNT_ROWS, ACCOUNTS_TABLE, ENTITIES, RULE_BODIES, setupRulesWorkload, transaction } from './rules-workload.js';

const RATE = 500;
const OPEN_LOOP_SECONDS = 20;
/** One stall of 100 ms delays some 50 requests, a p99 of one run moves with it: each configuration runs this many. */
const OPEN_LOOP_RUNS = 3;
const CLOSED_LOOP_SECONDS = 10;
const CONCURRENCY = 32;
const here = path.dirname(fileURLToPath(import.meta.url));


interface Figures {
  mode: string;
  /** Server-side p50/p99 (bucket upper bounds, ms) of evaluation and of the log write, open loop only. */
  decide: [number, number];
  publish: [number, number];
  sent: number;
  failed: number;
  achieved: number;
  p50: number;
  p90: number;
  p99: number;
  /** p99 of each open-loop run on its own. */
  runP99: number[];
  max: number;
  /** CPU time of the server process (every thread: JS, libuv, chDB) per transaction, open loop, ms. */
  serverCpuMs: number;
  /** The same for the main thread alone: the event loop that serves HTTP and runs the consumers. */
  mainThreadCpuMs: number;
  closedLoop: number;
  closedP50: number;
  closedP99: number;
  triggeredShare: number;
}

// WEIR_BENCH_PROFILE=<dir> writes a V8 CPU profile of the server there.
const startServer = (env: Record<string, string>) =>
  spawnBenchServer(import.meta.url, { ...env, RATE_LIMIT_PER_MINUTE: '100000000' }, process.env.WEIR_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.WEIR_BENCH_PROFILE}`] : []);

/**
 * The engine alone: engine.decide in process (no HTTP, no log), same rules and lookup table, with
 * counter values from a map (the counters service's live reader is measured in bench/windows.ts).
 */
async function evaluationOnly(): Promise<{ perSecond: number; p50: number; p99: number }> {
  const config = loadConfig({ DATA_DIR: await mkdtemp(path.join(tmpdir(), 'weir-bench-eval-')), LOG_LEVEL: 'silent' });
  const platform = await buildPlatform(config, createLogger('silent'));
  try {
    await runMigrations(platform.analytics, config.CLICKHOUSE_DATABASE, rulesMigrations);
    const counters: CounterReader = {
      describe: async () => ({ tableName: 'entity_counters', counters: [{ name: 'logins_1h', type: 'number' }, { name: 'amount_24h', type: 'number' }] }),
      values: async (_org, entity) => ({ logins_1h: entity.length % 5, amount_24h: entity.length * 100 }),
    };
    const definitions = createDefinitions(platform.analytics, platform.clock, 1_000);
    const tableData = createTableData({ analytics: platform.analytics, windows: platform.windows, clock: platform.clock, mirrorRefreshMs: 1_000, mirrorMaxRows: 200_000, mirrorRowsPerOrg: 1_000_000 });
    const engine = createEngine({ definitions, tableData, counters, clock: platform.clock, trace: false });
    const def = { ...tableBody.parse(ACCOUNTS_TABLE), generation: 'bench' };
    await definitions.addTable('org', def, () => tableData.create('org', def));
    await tableData.insert('org', def, ACCOUNT_ROWS);
    for (const [i, r] of RULE_BODIES.entries()) await definitions.putRule('org', { id: `rule-${i}`, ...r });
    for (let i = 0; i < 2_000; i++) await engine.decide('org', transaction(i));
    const n = 20_000;
    const times: number[] = [];
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await engine.decide('org', transaction(i));
      times.push(performance.now() - t0);
    }
    const perSecond = n / ((performance.now() - started) / 1000);
    times.sort((a, b) => a - b);
    return { perSecond, p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
  } finally {
    await closePlatform(platform);
  }
}

/**
 * The load generator shares the 2 cores with the server, so it is kept light: node:http with a
 * keep-alive pool (64 sockets; requests beyond wait in the pool, and that wait counts in their
 * latency), and the answer is checked by status and its triggeredRulesCount, not parsed whole.
 */
// The server closes a connection idle for 5 s (Node's keepAliveTimeout, announced in `Keep-Alive:
// timeout=5`); Node 20's agent ignores that hint unless it has a timeout of its own, and then reuses
// a socket the server is closing ("socket hang up", seen twice in some 30,000 requests). With
// `timeout`, idle sockets close on the client's side first.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
function postTransaction(base: string, org: string, key: string, body: unknown): Promise<number> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/transaction/${org}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'x-api-key': key } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const m = /"triggeredRulesCount":(\d+)/.exec(text);
        if (res.statusCode !== 200 || !m) reject(new Error(`${res.statusCode} ${text.slice(0, 300)}`));
        else resolve(Number(m[1]));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function measure(mode: string, env: Record<string, string>): Promise<Figures> {
  const org = `bench_${Math.random().toString(36).slice(2, 8)}`;
  const key = `key_${org}`;
  const { url, child } = await startServer({ ...env, API_KEYS: `${org}:${key}` });
  try {
    await setupRulesWorkload(url, org, key);
    const post = (i: number) => postTransaction(url, org, key, transaction(i, org));
    for (let i = 0; i < 500; i++) await post(i); // warm-up: JIT, mirrors, contexts

    const scrape = () => Promise.all([buckets(url, 'weir_rules_decide_seconds'), buckets(url, 'weir_rules_publish_seconds')]);
    const before = await scrape();
    const cpuBefore = await cpuMs(child.pid!);
    const mainBefore = await cpuMs(child.pid!, child.pid!);
    const total = RATE * OPEN_LOOP_SECONDS * OPEN_LOOP_RUNS;
    const latencies: number[] = [];
    const runP99: number[] = [];
    let failed = 0;
    let triggered = 0;
    let elapsedMs = 0;
    for (let run = 0; run < OPEN_LOOP_RUNS; run++) {
      const r = await openLoop({ rate: RATE, seconds: OPEN_LOOP_SECONDS, send: post, onAnswer: (n) => void (n > 0 && triggered++) });
      failed += r.failed;
      elapsedMs += r.ms;
      runP99.push(percentile(r.latencies, 0.99));
      latencies.push(...r.latencies);
    }
    const elapsed = elapsedMs / 1000;
    latencies.sort((a, b) => a - b);
    const after = await scrape();
    const serverCpuMs = ((await cpuMs(child.pid!)) - cpuBefore) / total;
    const mainThreadCpuMs = ((await cpuMs(child.pid!, child.pid!)) - mainBefore) / total;

    // Closed loop: CONCURRENCY clients back to back.
    const closed: number[] = [];
    const closedStart = performance.now();
    let n = total;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() - closedStart < CLOSED_LOOP_SECONDS * 1000) {
          const t0 = performance.now();
          await post(n++);
          closed.push(performance.now() - t0);
        }
      }),
    );
    const closedElapsed = (performance.now() - closedStart) / 1000;
    closed.sort((a, b) => a - b);
    return {
      mode,
      decide: bucketQuantiles(before[0], after[0]),
      publish: bucketQuantiles(before[1], after[1]),
      sent: total,
      failed,
      achieved: latencies.length / elapsed,
      p50: percentile(latencies, 0.5),
      p90: percentile(latencies, 0.9),
      p99: percentile(latencies, 0.99),
      runP99,
      max: latencies.at(-1) ?? NaN,
      serverCpuMs,
      mainThreadCpuMs,
      closedLoop: closed.length / closedElapsed,
      closedP50: percentile(closed, 0.5),
      closedP99: percentile(closed, 0.99),
      triggeredShare: triggered / Math.max(1, latencies.length),
    };
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

/**
 * How long a fixed loop of integer arithmetic takes on each core at once, ms, as "a / b". This
 * machine's cores are shared with other tenants and their speed varies about twofold over a day,
 * one core often slower than the other, so each result says how fast the machine was while it ran.
 */
async function speedCheck(): Promise<string> {
  const loop = `const t = performance.now(); let x = 0; for (let i = 0; i < 3e8; i++) x += i % 7; require('node:worker_threads').parentPort.postMessage(x < 0 ? 0 : Math.round(performance.now() - t));`;
  const times = await Promise.all(
    Array.from({ length: availableParallelism() }, async () => {
      const [ms] = (await once(new Worker(loop, { eval: true }), 'message')) as [number];
      return ms;
    }),
  );
  return times.sort((a, b) => a - b).join(' / ');
}

async function main(): Promise<void> {
  const load = loadavg()[0]!.toFixed(1);
  const speedBefore = await speedCheck();
  const kafka = process.env.WEIR_BENCH_KAFKA_BROKERS ?? '127.0.0.1:19092';
  const redis = process.env.WEIR_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const engineOnly = await evaluationOnly();
  console.log(engineOnly);
  const results: Figures[] = [];
  if (process.env.WEIR_BENCH_SKIP_EMBEDDED !== '1') {
    results.push(await measure('embedded defaults (embedded log, in-process windows, chDB)', { DATA_DIR: await mkdtemp(path.join(tmpdir(), 'weir-bench-rules-')) }));
    console.log(results.at(-1));
  }
  if (process.env.WEIR_BENCH_SKIP_REAL !== '1') {
    results.push(await measure(`real Kafka (${kafka}) + Redis (${redis}), chDB`, { DATA_DIR: await mkdtemp(path.join(tmpdir(), 'weir-bench-rules-')), KAFKA_BROKERS: kafka, REDIS_URL: redis }));
    console.log(results.at(-1));
  }
  const speedAfter = await speedCheck();
  const ms = (v: number) => v.toFixed(1);
  const table = [
    '| configuration | target rate | achieved tx/s | p50 ms | p90 ms | p99 ms | p99 of each run ms | max ms | failed | server: evaluate p50 / p99 ms | server: log write p50 / p99 ms | server CPU per transaction ms: all threads / main thread | closed-loop tx/s (32 clients) | closed-loop p50 / p99 ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.map(
      (r) =>
        `| ${r.mode} | ${RATE} | ${r.achieved.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p90)} | ${ms(r.p99)} | ${r.runP99.map(ms).join(' / ')} | ${ms(r.max)} | ${r.failed} | ≤${r.decide[0]} / ≤${r.decide[1]} | ≤${r.publish[0]} / ≤${r.publish[1]} | ${r.serverCpuMs.toFixed(2)} / ${r.mainThreadCpuMs.toFixed(2)} | ${r.closedLoop.toFixed(0)} | ${ms(r.closedP50)} / ${ms(r.closedP99)} |`,
    ),
  ];
  const md = `# Rule engine benchmark

Command: \`npx tsx bench/rules.ts\`  
Date: ${new Date().toISOString()}  
Machine: nproc ${availableParallelism()}, Node ${process.version}; load average at the start ${load}, shared with other work;
a fixed loop on each core at once took ${speedBefore} ms before the run and ${speedAfter} ms after (about 480 ms on a quiet core)

POST /transaction over HTTP (node:http, keep-alive, at most 64 connections) to a Weir process (role \`all\`: the API and the decisions
consumer) in a child process; the load generator runs in this process on the same 2 cores. 50 active
rules, each with three evaluations (amount and currency; two counters; a lookup-table row), so every
transaction reads the live counters of its entity and its \`accounts\` row; ${ENTITIES} entities, one
counter event of each kind per entity. Each answer comes after the transaction and its decision are
durably in the \`transactions\` log (embedded log with fsync, or Kafka acks=all). Open loop: ${RATE}
transactions/s, ${OPEN_LOOP_RUNS} runs of ${OPEN_LOOP_SECONDS} s after 500 warm-up requests; latency counted from each request's
scheduled send time, and the percentiles taken over all runs together (each run's own p99 beside them). Target: p99 under 20 ms at 500 transactions/s. The server columns come from the
process's own histograms (\`weir_rules_decide_seconds\`, \`weir_rules_publish_seconds\`; bucket upper
bounds) over the open-loop run: evaluation (data fetch and 50 rules) and waiting for the log. Server
CPU is the process's user and system time over the open loop, per transaction: all threads (JavaScript,
libuv, chDB), and the main thread alone, whose share of one core is the event loop's load.

${table.join('\n')}

The engine alone (\`engine.decide\` in process, sequential, no HTTP and no log; counters from a map):
${engineOnly.perSecond.toFixed(0)} transactions/s, p50 ${(engineOnly.p50 * 1000).toFixed(0)} µs, p99 ${(engineOnly.p99 * 1000).toFixed(0)} µs per
transaction of 50 rules (150 evaluations, one lookup-table row, two counters).

Share of transactions with at least one triggered rule: ${results.map((r) => `${(r.triggeredShare * 100).toFixed(0)}%`).join(', ')}.
`;
  await writeFile(path.join(here, 'results', 'rules.md'), md);
  console.log(md);
}

// Last, so every declaration above is initialised: this file is both the benchmark and its server.
if (process.env.WEIR_BENCH_SERVER === '1') {
  // WEIR_BENCH_ROLE=api serves HTTP without the consumers, to see what they cost the API.
  const role = process.env.WEIR_BENCH_ROLE === 'api' ? 'api' : 'all';
  const p = await startProcess({ role, env: process.env, handleSignals: true, services: [countersService, rulesService({ counters: createCounterReader })] });
  console.log(`URL ${p.url}`);
} else {
  await main();
}
