/**
 * What the slowest 1 % of a latency pair's requests wait behind (issue 30, pairs 2 and 4). Runs the
 * Weir side of `transactions-500` or `screening` alone, once, with tail-probe.mjs preloaded, then
 * lines the requests over the p99 up against the event loop's late turns, the garbage collections
 * and the chDB calls in flight, and, with a CPU profile (`WEIR_BENCH_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=<dir>"`; written when the server exits), the functions the event loop ran inside
 * those late turns. Not a pair: run.ts skips it by name.
 *   node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/peers/tail-probe.ts transactions|screening
 */
import '../scratch.js';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadSnapshot } from '../../infra/sanctions/loader.js';
import { REAL_LISTS_DIR } from '../../test/fixtures/sanctions/paths.js';
import { loadMix } from '../screening-eval/set.js';
import { setupRulesWorkload, transaction } from '../rules-workload.js';
import { percentile } from '../lib/open-loop.js';
import { cpuByThread } from '../lib/proc-cpu.js';
import { openLoop, send, startTimedServer, type Request, type TimedServer } from './edge/latency.js';
import { killOnExit } from './support/kill-on-exit.js';

const which = process.argv[2];
if (which !== 'transactions' && which !== 'screening') throw new Error('usage: tail-probe.ts transactions|screening');
const SECONDS = Number(process.env.PEERS_SECONDS ?? 20);
const PROBE = new URL('./edge/tail-probe.mjs', import.meta.url).pathname;
const KEY = 'peers-probe-key';

interface Span {
  at: number;
  ms: number;
}
interface Record_ {
  requests: Span[];
  gaps: Span[];
  pool: Span[];
  writes: (Span & { chdb: number; syncs: number })[];
  syncs: Span[];
  gcs: (Span & { kind: number })[];
  chdb: (Span & { op: string; sql: string; syncMs: number })[];
}

async function start(): Promise<{ server: TimedServer; rate: number; request: (i: number) => Request; warmUp: number }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weir-tail-probe-'));
  const common = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'warn' };
  process.env.WEIR_BENCH_NODE_ARGS = `${process.env.WEIR_BENCH_NODE_ARGS ?? ''} --import ${PROBE}`;
  if (which === 'transactions') {
    const server = await startTimedServer(new URL('./edge/weir-rules-server.ts', import.meta.url).href, { ...common, API_KEYS: `peers:${KEY}` });
    await setupRulesWorkload(server.url, 'peers', KEY);
    const request = (run: string) => (i: number) => ({ method: 'POST' as const, path: '/transaction/peers', headers: { 'x-api-key': KEY }, body: JSON.stringify(transaction(i, run)) });
    const warm = request('warm');
    return { server, rate: 500, request: (i) => (i < 0 ? warm(-i) : request('load')(i)), warmUp: 500 };
  }
  if (!REAL_LISTS_DIR) throw new Error('the screening probe needs the shared sanctions lists');
  const snapshot = await loadSnapshot(REAL_LISTS_DIR);
  const names = loadMix(snapshot.entities);
  const server = await startTimedServer(new URL('./edge/weir-screening-server.ts', import.meta.url).href, { ...common, SANCTIONS_DATA_DIR: REAL_LISTS_DIR, API_KEYS: [0, 1, 2, 3].map((k) => `peers:${KEY}${k}:enterprise`).join(',') });
  const request = (i: number) => ({ method: 'POST' as const, path: '/v1/aml/screen', headers: { 'x-api-key': `${KEY}${Math.abs(i) % 4}` }, body: JSON.stringify({ name: names[Math.abs(i) % names.length] }) });
  return { server, rate: 150, request, warmUp: 300 };
}

const overlap = (a: Span, b: Span): number => Math.max(0, Math.min(a.at + a.ms, b.at + b.ms) - Math.max(a.at, b.at));
/** The most spans open at one moment. */
function maxConcurrent(spans: Span[]): number {
  const edges = spans.flatMap((s) => [[s.at, 1], [s.at + (Number.isNaN(s.ms) ? 0 : s.ms), -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (open += d));
  return most;
}
const f = (x: number) => x.toFixed(1);

const { server, rate, request, warmUp } = await start();
killOnExit(server.child);
for (let i = 1; i <= warmUp; i++) {
  // Paced at the run's rate: back to back, screens exceed the enterprise plan's 200 per second.
  await new Promise((r) => setTimeout(r, 1000 / rate));
  const a = await send(server.url, request(-i));
  if (a.status !== 200) throw new Error(`warm-up answered ${a.status}: ${a.text.slice(0, 300)}`);
}
await new Promise((r) => setTimeout(r, 3_000));
const probe = (): Promise<Record_> =>
  new Promise((resolve) => {
    const onMessage = (m: { type?: string; record?: Record_ }) => {
      if (m.type !== 'tail-probe') return;
      server.child.off('message', onMessage);
      resolve(m.record!);
    };
    server.child.on('message', onMessage);
    server.child.send({ type: 'tail-probe' });
  });
await probe(); // forget the warm-up
const load1 = os.loadavg()[0]!.toFixed(2);
const pid = server.child.pid!;
const threadsBefore = await cpuByThread(pid);
const run = await openLoop(server.url, { rate, seconds: SECONDS, expect: [200], request: (i) => ({ ...request(i), headers: { ...request(i).headers, 'x-peers-series': 'load' } }) });
const rec = await probe();
const threadsAfter = await cpuByThread(pid);
await server.stop();

const times = rec.requests.map((r) => r.ms).sort((a, b) => a - b);
const p99 = percentile(times, 0.99);
const slow = rec.requests.filter((r) => r.ms >= p99);
const inFlight = (r: Span, spans: Span[]) => spans.filter((s) => overlap(r, s) > 0);
const gapMs = (r: Span) => inFlight(r, rec.gaps).reduce((s, g) => s + overlap(r, g), 0);
const slowGap = slow.map(gapMs).sort((a, b) => a - b);
const withInsert = (r: Span) => inFlight(r, rec.chdb).length > 0;
const all = rec.requests;
const lines = [
  `${which} at ${rate}/s for ${SECONDS} s, load ${load1} before, ${os.loadavg()[0]!.toFixed(2)} after; ${run.failed} failed`,
  `server-side p50 ${f(percentile(times, 0.5))} p99 ${f(p99)} max ${f(times.at(-1) ?? NaN)} ms over ${times.length} requests`,
  `late turns of the event loop (> 4 ms): ${rec.gaps.length}, ${rec.gaps.filter((g) => g.ms > 10).length} over 10 ms, ${rec.gaps.filter((g) => g.ms > 20).length} over 20 ms; ${f(rec.gaps.reduce((s, g) => s + g.ms, 0))} ms in all`,
  `requests over the p99 (${slow.length}): time inside late turns p50 ${f(percentile(slowGap, 0.5))} / min ${f(slowGap[0] ?? NaN)} ms of their own p50 ${f(percentile(slow.map((r) => r.ms).sort((a, b) => a - b), 0.5))} ms; ` +
    `${slow.filter(withInsert).length} of them had a chDB call in flight, against ${all.filter(withInsert).length} of all ${all.length}`,
  `late stats through the thread pool (> 4 ms): ${rec.pool.length}, ${rec.pool.filter((g) => g.ms > 10).length} over 10 ms; inside the slow requests p50 ${f(percentile(slow.map((r) => inFlight(r, rec.pool).reduce((s, g) => s + overlap(r, g), 0)).sort((a, b) => a - b), 0.5))} ms; most chDB calls in flight at once ${maxConcurrent(rec.chdb)}`,
  ...[0, 1, 2].map((n) => {
    const w = rec.writes.filter((x) => (n === 2 ? x.chdb >= 2 : x.chdb === n)).map((x) => x.ms).sort((a, b) => a - b);
    return `log writes begun with ${n === 2 ? '2 or more' : n} chDB calls in flight: ${w.length}, p50 ${f(percentile(w, 0.5))} p99 ${f(percentile(w, 0.99))} ms`;
  }),
  ...[0, 1].map((n) => {
    const w = rec.writes.filter((x) => (n === 1 ? x.syncs >= 1 : x.syncs === 0)).map((x) => x.ms).sort((a, b) => a - b);
    return `log writes begun with ${n === 1 ? 'an fsync' : 'no fsync'} of another file in flight: ${w.length}, p50 ${f(percentile(w, 0.5))} p99 ${f(percentile(w, 0.99))} ms`;
  }),
  `fsyncs: ${rec.syncs.length} (${f(rec.syncs.length / SECONDS)} a second), p50 ${f(percentile(rec.syncs.map((x) => x.ms).sort((a, b) => a - b), 0.5))} ms; requests over the p99 with one in flight: ${slow.filter((r) => inFlight(r, rec.syncs).length > 0).length} of ${slow.length}`,
  `GCs: ${rec.gcs.length}, ${f(rec.gcs.reduce((s, g) => s + g.ms, 0))} ms in all, max ${f(Math.max(0, ...rec.gcs.map((g) => g.ms)))} ms; inside the slow requests ${f(slow.reduce((s, r) => s + inFlight(r, rec.gcs).reduce((t, g) => t + overlap(r, g), 0), 0))} ms`,
  `server CPU per request by thread (ms): ${[...threadsAfter].map(([name, ms]) => [name, (ms - (threadsBefore.get(name) ?? 0)) / Math.max(1, times.length)] as const).filter(([, ms]) => ms >= 0.005).sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${ms.toFixed(3)}`).join(', ')}`,
];
const ops = new Map<string, number[][]>();
for (const c of rec.chdb) {
  const key = `${c.op} ${c.sql.split('\n')[0]}`;
  const list = ops.get(key) ?? [[], []];
  list[0]!.push(c.ms);
  list[1]!.push(c.syncMs);
  ops.set(key, list);
}
for (const [key, [ms, sync]] of ops) {
  const s = ms!.sort((a, b) => a - b);
  const gapsIn = rec.gaps.filter((g) => rec.chdb.some((c) => `${c.op} ${c.sql.split('\n')[0]}` === key && overlap(g, c) > 0));
  lines.push(`chDB ${key}: ${s.length} calls, p50 ${f(percentile(s, 0.5))} max ${f(s.at(-1) ?? NaN)} ms, holding the loop at most ${(Math.max(...sync!)).toFixed(2)} ms; ${gapsIn.length} late turns overlap them (${f(gapsIn.reduce((t, g) => t + g.ms, 0))} ms)`);
}
console.log(lines.join('\n'));
if (process.env.TAIL_PROBE_OUT) await writeFile(process.env.TAIL_PROBE_OUT, JSON.stringify(rec));

// With a CPU profile: which functions ran inside the late turns over 8 ms (self time, top 25).
const profDir = /--cpu-prof-dir=(\S+)/.exec(process.env.WEIR_BENCH_NODE_ARGS ?? '')?.[1];
if (profDir) {
  // The main thread's profile is the first of the process (`CPU.<date>.<time>.<pid>.0.<seq>`).
  const file = (await readdir(profDir)).filter((n) => n.endsWith('.cpuprofile') && n.includes(`.${pid}.0.`)).at(-1);
  if (file) console.log(await gapProfile(path.join(profDir, file), rec));
}

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; parent?: number; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Samples of the profile inside the long late turns, by function (self) and by the Weir file nearest the top of the stack. */
async function gapProfile(file: string, rec: Record_ & { clock?: { perfNow: number; hrUs: number } }): Promise<string> {
  const prof = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const clock = (rec as { clock?: { perfNow: number; hrUs: number } }).clock;
  if (!clock) return 'no clock in the probe record';
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const long = rec.gaps.filter((g) => g.ms > 8);
  const self = new Map<string, number>();
  const weirFile = new Map<string, number>();
  let t = prof.startTime;
  let inside = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i]!;
    const at = clock.perfNow + (t - clock.hrUs) / 1000;
    if (!long.some((g) => at >= g.at && at <= g.at + g.ms)) continue;
    inside++;
    const node = byId.get(prof.samples[i]!)!;
    const name = `${node.callFrame.functionName || '(anonymous)'} ${path.basename(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + 1);
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const url = byId.get(id)!.callFrame.url;
      if (url.includes('/work/') && !url.includes('node_modules')) {
        const key = url.slice(url.indexOf('/work/')).split('/').slice(4).join('/');
        weirFile.set(key, (weirFile.get(key) ?? 0) + 1);
        break;
      }
    }
  }
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `  ${v} ${k}`).join('\n');
  return `profile ${path.basename(file)}: ${inside} samples inside ${long.length} late turns over 8 ms\nby function (self):\n${top(self)}\nby the Weir file nearest the top of the stack:\n${top(weirFile)}`;
}
