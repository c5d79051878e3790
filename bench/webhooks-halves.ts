/**
 * The webhooks pair (bench/peers/webhooks.ts) taken apart, to find which half holds its rate. Same
 * workload: events fanned out to four signed registrations, POST /events 16 at a time, nginx-light
 * answering 204. Three Weir processes on the embedded defaults, one after the other:
 *   - intake alone (role `api`, no delivery workers): POST /events = auth, validation, fan-out
 *     plan, durable append of the jobs to `webhook.deliveries`;
 *   - delivery alone (role `webhooks`, no HTTP, on the intake's data): the backlog the intake left,
 *     topic → signed POST → attempt logged, measured between 10 % and 90 % of it received;
 *   - both (role `all`, as in the pair), from the first POST to the last delivery received.
 * Each reports CPU per event and per delivery of the Weir process from /proc (all threads, and its
 * main thread), its wall rate, and the main thread's `node --cpu-prof` profile over the measured
 * window only (self time by place and function, inclusive time by project function).
 * Writes bench/results/webhooks-halves.md. Run: `npx tsx bench/webhooks-halves.ts`
 * (WEIR_BENCH_EVENTS per half, default 4,000; WEIR_BENCH_PROFILE_DIR keeps the profiles;
 * WEIR_BENCH_HALVES=intake,delivery leaves out the third half, for rounds that compare the first two).
 */
import './scratch.js';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { PER_DESTINATION } from '../pipelines/webhooks/sender.js';
import { spawnBenchServer } from './bench-server.js';
import { cpuByThread, cpuMs } from './lib/proc-cpu.js';
import { profileClockUs, summarizeProfile, type Layer, type ProfileSummary } from './lib/cpu-profile.js';
import { aptInstall } from './peers/edge/install.js';
import { send } from './peers/edge/latency.js';
import { startNginx } from './peers/edge/nginx.js';

const EVENTS = Number(process.env.WEIR_BENCH_EVENTS ?? 4_000);
/** The intake always runs: delivery drains the backlog it leaves. */
const HALVES = new Set((process.env.WEIR_BENCH_HALVES ?? 'intake,delivery,both').split(','));
const TARGETS = 4;
const WARM = 50;
const KEY = 'halves-key';
const EVENT = 'workflow_run_started';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const profiles = process.env.WEIR_BENCH_PROFILE_DIR ?? path.join(os.tmpdir(), 'profiles');
const payload = (i: number) => ({ run_id: `w${i}`, workflow_id: 'peers', input_payload: { step: i % 10 } });
const headers = { 'x-api-key': KEY, 'x-org-id': 'halves' };
/** Where the main thread's time went: each sample to the layer of its innermost frame one of these matches. */
const LAYERS: Layer[] = [
  ['GC', /^\(garbage collector\)/],
  ['delivery: attempt, signing, sender (undici)', /pipelines\/webhooks\/(worker|sender|health|circuit-board)|domain\/webhooks\/(signing|retry)|pkg:undici/],
  ['delivery: attempt log (chDB client)', /pipelines\/webhooks\/delivery-log|pkg:@clickhouse|pkg:chdb/],
  ['delivery: consumer stage', /pipelines\/(stage|handler-failures)|infra\/bus\/embedded\/consumer|infra\/map-limit/],
  ['registrations (cache, secrets)', /pipelines\/webhooks\/(registry|secret-box)|infra\/refreshing-cache|pkg:tiny-lru/],
  ['intake: fan-out plan, job encoding', /pipelines\/webhooks\/(fan-out|topics|approvals)|infra\/codec|domain\/webhooks\/(filter|catalogue)/],
  ['embedded log (append, read)', /infra\/bus\/embedded|infra\/group-commit|node:internal\/fs/],
  ['validation (zod)', /parseOr400|pkg:zod|domain\/webhooks\/bounds/],
  ['intake: POST /events handler', /api\/webhooks\//],
  ['edge: key, rate limit, request log, metrics', /api\/http\/(auth|rate-limit|request-log|metrics|lane|shared-windows)|infra\/api-keys|pkg:prom-client|pkg:pino/],
  ['Express: dispatch, body parser, response', /api\/http\/service-router|pkg:(express|router|body-parser|raw-body|type-is|parseurl|content-type|etag|send|finalhandler|mime-types|qs|on-finished|iconv-lite)/],
  ['sockets and HTTP framing (node:net, node:_http_*)', /node:(_http|net|internal\/streams|internal\/stream_base)/],
];

await aptInstall(['nginx-light']);
const receiver = await startNginx();

interface Sample {
  /** Profile clock, µs. */
  us: number;
  received: number;
  /** CPU ms so far: the process (threads that ended included), its main thread, each group of its threads. */
  cpu: number;
  main: number;
  threads: Map<string, number>;
}

interface Half {
  name: string;
  /** What the figure counts. */
  events: number;
  deliveries: number;
  seconds: number;
  cpuMs: number;
  mainMs: number;
  /** CPU µs per delivery by group of threads, most first. */
  threads: [string, number][];
  profile: ProfileSummary;
  load: string;
}

const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');

async function sample(pid: number): Promise<Sample> {
  return { us: profileClockUs(), received: await receiver.received(), cpu: await cpuMs(pid), main: await cpuMs(pid, pid), threads: await cpuByThread(pid) };
}

/** The half measured between samples `a` and `b`, `deliveries` apart. */
const half = (name: string, events: number, deliveries: number, a: Sample, b: Sample, profile: ProfileSummary, l: string): Half => ({
  name,
  events,
  deliveries,
  seconds: (b.us - a.us) / 1e6,
  cpuMs: b.cpu - a.cpu,
  mainMs: b.main - a.main,
  threads: [...b.threads]
    .map(([k, ms]): [string, number] => [k, ((ms - (a.threads.get(k) ?? 0)) * 1000) / deliveries])
    .filter(([, us]) => us >= 1)
    .sort((x, y) => y[1] - x[1]),
  profile,
  load: l,
});

async function start(role: 'api' | 'webhooks' | 'all', dataDir: string) {
  const dir = path.join(profiles, role);
  await mkdir(dir, { recursive: true });
  const server = await spawnBenchServer(new URL('./peers/edge/weir-webhooks-server.ts', import.meta.url).href, {
    DATA_DIR: dataDir,
    API_KEYS: `halves:${KEY}`,
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'warn',
    WEIR_BENCH_ROLE: role,
  }, ['--cpu-prof', '--cpu-prof-dir', dir]);
  const post = async (route: string, body: unknown) => {
    const a = await send(server.url, { method: 'POST', path: route, headers, body: JSON.stringify(body) });
    if (a.status >= 300) throw new Error(`POST ${route}: ${a.status} ${a.text.slice(0, 300)}`);
  };
  return { ...server, post, dir };
}

/** Stops the server (SIGTERM: a graceful stop, then exit, which writes the profile) and answers the profile's summary over the window. */
async function stop(s: { child: ChildProcess; dir: string }, from: Sample, to: Sample): Promise<ProfileSummary> {
  const exited = once(s.child, 'exit');
  s.child.kill('SIGTERM');
  await exited;
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (tsx's loader has its own).
  const file = (await readdir(s.dir)).find((f) => /\.0\.\d+\.cpuprofile$/.test(f));
  if (!file) throw new Error(`no main-thread profile in ${s.dir}`);
  return summarizeProfile(path.join(s.dir, file), root, { fromUs: from.us, toUs: to.us }, LAYERS);
}

/** POSTs `count` events, PER_DESTINATION at a time, as the pair does. */
async function postEvents(post: (route: string, body: unknown) => Promise<void>, count: number, offset: number) {
  let next = 0;
  await Promise.all(
    Array.from({ length: PER_DESTINATION }, async () => {
      while (next < count) await post('/events', { event: EVENT, payload: payload(offset + next++) });
    }),
  );
}

const register = async (post: (route: string, body: unknown) => Promise<void>) => {
  for (let i = 0; i < TARGETS; i++) await post('/webhooks', { event: EVENT, url: `${receiver.url}/halves-${i}`, secret: 'a-halves-signing-secret' });
};

const halves: Half[] = [];
const shared = await mkdtemp(path.join(os.tmpdir(), 'weir-halves-'));

// Intake alone: the jobs are appended and nothing consumes them.
{
  const s = await start('api', shared);
  await register(s.post);
  await postEvents(s.post, WARM, 0);
  const l = load();
  const a = await sample(s.child.pid!);
  await postEvents(s.post, EVENTS, WARM);
  const b = await sample(s.child.pid!);
  halves.push(half('intake alone: POST /events (role api)', EVENTS, EVENTS * TARGETS, a, b, await stop(s, a, b), l));
}

// Delivery alone: the backlog the intake left (its warm-up's and its events' jobs), from the log.
if (HALVES.has('delivery')) {
  const backlog = (WARM + EVENTS) * TARGETS;
  const base = await receiver.received();
  const l = load();
  const s = await start('webhooks', shared);
  let a: Sample | undefined;
  let b: Sample | undefined;
  while (!b) {
    const got = (await receiver.received()) - base;
    if (!a && got >= backlog * 0.1) a = await sample(s.child.pid!);
    else if (a && got >= backlog * 0.9) b = await sample(s.child.pid!);
    else await sleep(20);
  }
  await receiver.until(base + backlog, 600_000);
  const n = b.received - a!.received;
  halves.push(half('delivery alone: topic → signed POST → attempt logged (role webhooks)', n / TARGETS, n, a!, b, await stop(s, a!, b), l));
}

// Both, as the pair runs them.
if (HALVES.has('both')) {
  const s = await start('all', await mkdtemp(path.join(os.tmpdir(), 'weir-halves-all-')));
  await register(s.post);
  const warmed = await receiver.received();
  await postEvents(s.post, WARM, 0);
  await receiver.until(warmed + WARM * TARGETS, 120_000);
  const l = load();
  const a = await sample(s.child.pid!);
  await postEvents(s.post, EVENTS, WARM);
  await receiver.until(a.received + EVENTS * TARGETS, 600_000);
  const b = await sample(s.child.pid!);
  halves.push(half('both (role all, as the pair)', EVENTS, EVENTS * TARGETS, a, b, await stop(s, a, b), l));
}
await receiver.stop();

const f = (x: number, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const rows = halves.map(
  (h) =>
    `| ${h.name} | ${f(h.deliveries)} | ${f(h.deliveries / h.seconds)} | ${f((h.cpuMs * 1000) / h.deliveries)} | ${f((h.mainMs * 1000) / h.deliveries)} | ${f((h.mainMs * 100) / (h.seconds * 1000))} % | ${h.load} |`,
);
const list = (xs: [string, number][]) => xs.map(([k, ms]) => `  - ${f(ms)} ms ${k}`).join('\n');
const profileText = halves
  .map((h) => [
    `### ${h.name}`,
    '',
    `CPU µs per delivery by thread: ${h.threads.map(([k, us]) => `${k} ${f(us)}`).join(', ')}.`,
    '',
    `Main-thread profile over the measured window (${f(h.profile.busyMs)} ms busy, ${f(h.profile.idleMs)} ms idle; wall-clock samples, so on a loaded machine a frame's share includes the time the thread waited for a core in it):`,
    '',
    `- by layer (each sample to its innermost recognised frame):\n${list(h.profile.byLayer)}`,
    `- self time by place:\n${list(h.profile.selfByPlace)}`,
    `- self time by function:\n${list(h.profile.selfByFunction)}`,
    `- inclusive time by project function:\n${list(h.profile.inclusiveByProjectFunction)}`,
  ].join('\n'))
  .join('\n\n');
const out = `## Webhooks pair, its halves apart

Command: \`npx tsx bench/webhooks-halves.ts\` (WEIR_BENCH_EVENTS=${EVENTS}, WEIR_BENCH_HALVES=${[...HALVES].join(',')}). Date ${new Date().toISOString()}; ${os.availableParallelism()} cores,
node ${process.version}; load average (1 / 5 / 15 min) beside each half, taken just before it. Each half is its own Weir process
(the node options of \`npm start\`, embedded defaults, \`--cpu-prof\`); the POST /events client is this process, ${PER_DESTINATION} requests
at a time; the receiver is nginx-light answering 204. CPU from /proc/<pid>/stat (10 ms ticks) over the measured window; "main" is the
event-loop thread alone (the rest is chDB's, lmdb's and V8's threads). Rates are wall-clock on a shared machine: read the CPU columns.

| half | deliveries measured | deliveries/s (wall) | CPU µs / delivery (process) | CPU µs / delivery (main thread) | main thread busy | load |
|---|---:|---:|---:|---:|---:|---|
${rows.join('\n')}

For intake, a delivery is a quarter of an event (each event fans out to ${TARGETS} registrations).

${profileText}
`;
await writeFile(path.join(root, 'bench/results/webhooks-halves.md'), out);
console.log(out);
process.exit(0);
