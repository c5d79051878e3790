/**
 * Pair 5, webhooks against a bare sender: deliveries per second from POST /events (each event
 * fanned out to four signed registrations) to a local nginx answering 204, against a bare undici
 * pool posting the same signed bodies to the same receiver at the same concurrency (Weir's 16 a
 * destination) with no queue and no durability (edge/bare-sender.ts). Each round times one batch
 * from its first request until the receiver has answered every delivery (its access log). Beside
 * the rate, each side's process CPU per delivery (/proc), which a loaded machine disturbs less.
 * Run: `npm run bench:peers -- webhooks` (PEERS_EVENTS per round, default 1,000; PEERS_ROUNDS, 3).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PER_DESTINATION } from '../../pipelines/webhooks/sender.js';
import { spawnBenchServer } from '../bench-server.js';
import { cpuMs } from '../lib/proc-cpu.js';
import { median, type Beside, runPair } from './harness.js';
import type { SenderJob } from './edge/bare-sender.js';
import { aptInstall } from './edge/install.js';
import { send } from './edge/latency.js';
import { startNginx, type Receiver } from './edge/nginx.js';
import { pairRun } from './edge/pair-run.js';

const EVENTS = Number(process.env.PEERS_EVENTS ?? 1_000);
const TARGETS = 4;
const DELIVERIES = EVENTS * TARGETS;
const TIMEOUT_MS = 600_000;
const KEY = 'peers-webhooks-key';
const SECRET = 'a-peers-bench-signing-secret';
const EVENT = 'workflow_run_started';
const payload = (i: number) => ({ run_id: `w${i}`, workflow_id: 'peers', input_payload: { step: i % 10 } });

const notes = [
    `Both sides post to the same nginx-light (one worker, access log of one line a request, \`return 204\`), ${DELIVERIES} deliveries a round (Weir: ${EVENTS} events to ${TARGETS} registrations; the bare sender: ${DELIVERIES} requests), ${PER_DESTINATION} in flight, timed from the first request to the receiver's last answer. Weir runs in its own process (the node options of \`npm start\`), its POST /events client in the pair's process, ${PER_DESTINATION} requests at a time; the bare sender runs in its own process.`,
];
let receiver: Receiver | undefined;
let weir: { url: string; child: ChildProcess } | undefined;
let sender: ChildProcess | undefined;
/** Process CPU µs per delivery, per round: Weir's server (not its POST /events client), the bare sender. */
const cpu = { weir: [] as number[], bare: [] as number[] };
const cpuPerDelivery = async (child: ChildProcess, since: number) => ((await cpuMs(child.pid!)) - since) * 1000 / DELIVERIES;
const headers = { 'x-api-key': KEY, 'x-org-id': 'peers' };

async function post(path: string, body: unknown): Promise<string> {
  const a = await send(weir!.url, { method: 'POST', path, headers, body: JSON.stringify(body) });
  if (a.status >= 300) throw new Error(`POST ${path}: ${a.status} ${a.text.slice(0, 300)}`);
  return a.text;
}

/** Weir: EVENTS events through POST /events, PER_DESTINATION requests at a time. */
async function weirRound(): Promise<number> {
  const base = await receiver!.received();
  const cpu0 = await cpuMs(weir!.child.pid!);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: PER_DESTINATION }, async () => {
      while (next < EVENTS) {
        const i = next++;
        await post('/events', { event: EVENT, payload: payload(i) });
      }
    }),
  );
  const accepted = performance.now();
  const done = await receiver!.until(base + DELIVERIES, TIMEOUT_MS);
  cpu.weir.push(await cpuPerDelivery(weir!.child, cpu0));
  notes.push(`Weir round: ${EVENTS} events accepted (202, durably queued) in ${((accepted - t0) / 1000).toFixed(1)} s, ${DELIVERIES} deliveries answered by the receiver ${((done - t0) / 1000).toFixed(1)} s after the first request.`);
  return DELIVERIES / ((done - t0) / 1000);
}

async function bareRound(): Promise<number> {
  const base = await receiver!.received();
  const cpu0 = await cpuMs(sender!.pid!);
  const t0 = performance.now();
  const job: SenderJob = { url: `${receiver!.url}/bare`, deliveries: DELIVERIES, concurrency: PER_DESTINATION, secret: SECRET, event: EVENT, payload: payload(0) };
  const answer = once(sender!, 'message') as Promise<[{ ok: boolean; failed?: number; error?: string }]>;
  sender!.send(job);
  const [r] = await answer;
  if (!r.ok || r.failed) throw new Error(`bare sender: ${r.error ?? `${r.failed} failed`}`);
  const done = await receiver!.until(base + DELIVERIES, TIMEOUT_MS);
  cpu.bare.push(await cpuPerDelivery(sender!, cpu0));
  return DELIVERIES / ((done - t0) / 1000);
}

const stop = async (child: ChildProcess | undefined) => {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
};

await runPair({
  id: 'webhooks',
  order: 5,
  title: `Webhooks: Weir (POST /events, durable queue) vs a bare undici pool, to nginx answering 204`,
  metric: 'deliveries/s',
  higherIsBetter: true,
  goal: { ratio: 0.5, text: 'Weir ≥ 0.5× the bare sender' },
  weir: {
    name: 'Weir (POST /events, role all, embedded defaults)',
    async setup() {
      notes.push(await aptInstall(['nginx-light']));
      receiver = await startNginx();
      weir = await spawnBenchServer(new URL('./edge/weir-webhooks-server.ts', import.meta.url).href, {
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'weir-peers-webhooks-')),
        API_KEYS: `peers:${KEY}`,
        RATE_LIMIT_PER_MINUTE: '100000000',
        LOG_LEVEL: 'warn',
      });
      for (let i = 0; i < TARGETS; i++) await post('/webhooks', { event: EVENT, url: `${receiver.url}/weir-${i}`, secret: SECRET });
      // Warm-up: connections, JIT, the delivery log's first inserts.
      const base = await receiver.received();
      for (let i = 0; i < 50; i++) await post('/events', { event: EVENT, payload: payload(i) });
      await receiver.until(base + 50 * TARGETS, TIMEOUT_MS);
    },
    run: weirRound,
    teardown: async () => stop(weir?.child),
  },
  peer: {
    name: `bare undici pool, ${PER_DESTINATION} connections, no queue, no durability`,
    async setup() {
      sender = fork(fileURLToPath(new URL('./edge/bare-sender.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
      // Warm-up, as Weir's: connections and JIT.
      const answer = once(sender, 'message');
      sender.send({ url: `${receiver!.url}/bare`, deliveries: 50 * TARGETS, concurrency: PER_DESTINATION, secret: SECRET, event: EVENT, payload: payload(0) } satisfies SenderJob);
      await answer;
    },
    run: bareRound,
    async teardown() {
      await stop(sender);
      await receiver?.stop();
    },
  },
  ...pairRun('webhooks', 'PEERS_EVENTS (1,000) per round, PEERS_ROUNDS (3)'),
  guarantees: [
    'Weir: POST /events answers 202 once every delivery is durably queued (embedded log, fsync); each delivery is attempted at least once with a stable delivery id (receivers deduplicate on it), signed over its exact bytes, every attempt recorded in the delivery log (chDB) before its batch commits, failures retried on a durable schedule with backoff, a circuit per URL, at most 16 requests in flight per destination; a crash loses nothing accepted.',
    'Bare sender: the same signed bodies posted once, 16 at a time, nothing queued, logged or retried; a crash or a failed request loses the delivery.',
  ],
  notes,
  // Read by runPair after the rounds, once every round has measured its CPU.
  get beside(): Beside[] {
    const round = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    return [
      { name: 'Weir process CPU per delivery, median of the rounds', value: median(cpu.weir), unit: 'µs', text: `rounds ${round(cpu.weir)}; /proc/<pid>/stat, 10 ms ticks, all threads, its POST /events client not included` },
      { name: 'bare sender process CPU per delivery, median of the rounds', value: median(cpu.bare), unit: 'µs', text: `rounds ${round(cpu.bare)}` },
    ];
  },
});
process.exit(0);
