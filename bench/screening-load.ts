/**
 * Screening over HTTP under an open-loop load (issue 16): POST /v1/aml/screen at 50, 100 and 150
 * screens/s, each request due at its scheduled time whatever happened before it (a stall counts
 * against every request it delays), the audit write on (embedded log, fsync before the answer).
 * The server runs in a child process on embedded defaults with every shared list loaded. Reports
 * p50/p95/p99 from the client, and the share of server time in candidate generation, scoring and
 * the audit write: the route's Server-Timing (`screen`, `audit`) per request, with the screen part
 * split into candidate generation and scoring by timing both halves of the search in process on
 * the same queries. Writes bench/results/screening-load.md.
 * Run: `node --import tsx bench/screening-load.ts [seconds per rate = 20]`.
 */
import './scratch.js';
import { spawnBenchServer } from './bench-server.js';
import { damonState } from './damon.js';
import { openLoop, percentile } from './lib/open-loop.js';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess } from '../app/start.js';
import { screeningService } from '../services/screening.js';
import { loadSnapshot } from '../infra/sanctions/loader.js';
import { DEFAULT_RELATIONSHIP_SETTINGS, DEFAULT_THRESHOLDS, screen } from '../domain/screening/screen.js';
import { nameTokens } from '../domain/screening/normalize.js';
import { REAL_LISTS_DIR } from '../test/fixtures/sanctions/paths.js';
import { evalCases, ordinaryPeople } from './screening-eval/set.js';

const RATES = [50, 100, 150];
const KEYS = 4;

const startServer = () =>
  spawnBenchServer(import.meta.url, {
    SANCTIONS_DATA_DIR: REAL_LISTS_DIR!,
    API_KEYS: Array.from({ length: KEYS }, (_, i) => `bench:bench_key_${i}:enterprise`).join(','),
  });

const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
interface Answer {
  screen: number;
  audit: number;
}
function post(base: string, i: number, name: string): Promise<Answer> {
  const payload = JSON.stringify({ name });
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'x-api-key': `bench_key_${i % KEYS}` };
    const req = http.request(`${base}/v1/aml/screen`, { method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        const timing = String(res.headers['server-timing'] ?? '');
        const dur = (what: string) => Number(new RegExp(`${what};dur=([\\d.]+)`).exec(timing)?.[1] ?? NaN);
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        else resolve({ screen: dur('screen'), audit: dur('audit') });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The open loop over `names` in turn, keeping every answer. */
async function loadNames(base: string, rate: number, seconds: number, names: string[]) {
  const answers: Answer[] = [];
  const { latencies, failed } = await openLoop({ rate, seconds, send: (i) => post(base, i, names[i % names.length]!), onAnswer: (a) => void answers.push(a) });
  return { latencies, answers, failed };
}

async function main() {
  const seconds = Number(process.argv[2] ?? 20);
  const load = os.loadavg();
  // The query mix: perturbed listed names of every class and ordinary names, one to one.
  const snapshot = await loadSnapshot(REAL_LISTS_DIR!);
  const listed = evalCases(snapshot.entities, 100, 77).map((c) => c.query);
  const listedKeys = new Set(snapshot.entities.flatMap((e) => e.names.map((n) => nameTokens(n.name).sort().join(' '))));
  const ordinary = ordinaryPeople(listedKeys, listed.length, 78);
  const names = listed.flatMap((q, i) => [q, ordinary[i]!]);

  // In process: the screen split into candidate generation and scoring, on the same names.
  let retrieveMs = 0;
  let scoreMs = 0;
  let restMs = 0;
  for (let round = 0; round < 2; round++) {
    for (const name of names) {
      const t0 = performance.now();
      const prepared = snapshot.index.prepare(name);
      const pool = snapshot.index.retrieve(prepared, { minScore: 0.6 });
      const t1 = performance.now();
      snapshot.index.score(prepared, pool, { minScore: 0.6 });
      const t2 = performance.now();
      screen(snapshot, prepared, { name }, DEFAULT_THRESHOLDS, DEFAULT_RELATIONSHIP_SETTINGS);
      const t3 = performance.now();
      if (round === 1) {
        retrieveMs += t1 - t0;
        scoreMs += t2 - t1;
        // screen() searches again: what it adds beyond one search (parties, facts, relationships).
        restMs += Math.max(0, t3 - t2 - (t2 - t0));
      }
    }
  }
  const splitTotal = retrieveMs + scoreMs + restMs;

  const { url, child } = await startServer();
  try {
    for (let i = 0; i < 300; i++) await post(url, i, names[i % names.length]!); // warm-up: JIT, first list wait
    const rows: string[] = [];
    const shares: string[] = [];
    for (const rate of RATES) {
      const r = await loadNames(url, rate, seconds, names);
      const l = r.latencies;
      const screenMs = mean(r.answers.map((a) => a.screen));
      const auditMs = mean(r.answers.map((a) => a.audit));
      const server = screenMs + auditMs;
      const auditSorted = r.answers.map((a) => a.audit).sort((a, b) => a - b);
      const screenSorted = r.answers.map((a) => a.screen).sort((a, b) => a - b);
      rows.push(
        `| ${rate} | ${l.length} | ${r.failed} | ${percentile(l, 0.5).toFixed(2)} | ${percentile(l, 0.95).toFixed(2)} | ${percentile(l, 0.99).toFixed(2)} | ${l.at(-1)!.toFixed(1)} | ${percentile(screenSorted, 0.5).toFixed(2)} / ${percentile(screenSorted, 0.99).toFixed(2)} | ${percentile(auditSorted, 0.5).toFixed(2)} / ${percentile(auditSorted, 0.99).toFixed(2)} |`,
      );
      // What the client waited beyond the route: HTTP, body parsing, authentication, rate limit, queueing.
      const outside = Math.max(0, mean(l) - server);
      const part = (ms: number) => `${((ms / (server + outside)) * 100).toFixed(0)}%`;
      shares.push(
        `| ${rate} | ${mean(l).toFixed(2)} | ${server.toFixed(2)} | ${part(screenMs * (retrieveMs / splitTotal))} | ${part(screenMs * (scoreMs / splitTotal))} | ${part(screenMs * (restMs / splitTotal))} | ${part(auditMs)} | ${part(outside)} |`,
      );
    }
    const md = `# Screening under open-loop load (issue 16)

Run ${new Date().toISOString()} by \`node --import tsx bench/screening-load.ts ${seconds}\` on ${os.cpus().length} cores, Node ${process.version}; load average ${load.map((x) => x.toFixed(1)).join(' / ')} at start and ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} at the end${load[0]! > 1.5 ? ': **the machine was shared with other builds, so these figures are noisy** (other processes take the CPU and the disk at any moment)' : ''}; ${damonState()}. Server in a child process on embedded defaults (embedded log with fsync before each answer, chDB), every shared list loaded (${snapshot.entities.length} entities), ${seconds} s per rate, ${names.length} names (perturbed listed names of every class of the evaluation set, and ordinary names, alternating). Latency from each request's scheduled time to its answer.

| screens/s | requests | failed | p50 ms | p95 ms | p99 ms | max ms | server screen p50 / p99 ms | server audit write p50 / p99 ms |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

Share of the time a client waits, per request (mean): the route's Server-Timing (\`screen\`, \`audit\`), the screen part split in process (candidate generation ${((retrieveMs / splitTotal) * 100).toFixed(0)}%, scoring ${((scoreMs / splitTotal) * 100).toFixed(0)}%, parties, facts and relationships ${((restMs / splitTotal) * 100).toFixed(0)}% of it, mean over the same names), and the rest of the wait outside the route (HTTP, parsing, authentication, rate limit, waiting for the event loop):

| screens/s | client ms (mean) | route ms (mean) | candidate generation | scoring | parties, facts, relationships | audit write (fsync) | outside the route |
|---:|---:|---:|---:|---:|---:|---:|---:|
${shares.join('\n')}
`;
    await writeFile(path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'screening-load.md'), md);
    console.log(md);
  } finally {
    child.kill('SIGTERM');
  }
}

// This file is both the benchmark and its server.
if (process.env.WEIR_BENCH_SERVER === '1') {
  const p = await startProcess({ role: 'all', env: process.env, handleSignals: true, services: [screeningService] });
  console.log(`URL ${p.url}`);
} else {
  await main();
  process.exit(0);
}
