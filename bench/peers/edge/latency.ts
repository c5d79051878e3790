import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { spawnBenchServer } from '../../bench-server.js';
import { cpuMs } from '../../lib/proc-cpu.js';
import { percentile } from '../../lib/open-loop.js';
import type { Side } from '../harness.js';

/**
 * The latency pairs' instruments: a server child with the node options of `npm start` and the
 * in-server timer (server-timer.mjs) preloaded, an open-loop client, and the percentiles of both.
 */

const TIMER = fileURLToPath(new URL('./server-timer.mjs', import.meta.url));

export interface TimedServer {
  url: string;
  child: ChildProcess;
  /** The server-side durations (ms, sorted) of one series since the last call; the others are dropped. */
  times(series: string): Promise<number[]>;
  stop(): Promise<void>;
}

/** Starts `moduleUrl` (a server script that prints `URL <base>`) with the request timer preloaded. */
export async function startTimedServer(moduleUrl: string, env: Record<string, string>): Promise<TimedServer> {
  const { url, child } = await spawnBenchServer(moduleUrl, env, ['--import', TIMER], { ipc: true });
  return {
    url,
    child,
    async times(series) {
      const answer = once(child, 'message') as Promise<[{ times: Record<string, number[]> }]>;
      child.send({ type: 'peers-server-times' });
      const [m] = await answer;
      return (m.times[series] ?? []).sort((a, b) => a - b);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface OpenLoopResult {
  /** From each request's scheduled time to its whole answer, ms, sorted. */
  client: number[];
  /** Answers by status. */
  statuses: Record<number, number>;
  failed: number;
  firstFailure?: string;
}

// Keep-alive, and idle sockets closed on the client's side before the server's 5 s keep-alive
// timeout closes them under a request (bench/rules.ts has the story).
const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });

/** One request; resolves with the status once the whole answer is read. */
export function send(base: string, r: Request): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = r.body === undefined ? r.headers : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(r.body)), ...r.headers };
    const req = http.request(`${base}${r.path}`, { method: r.method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

/**
 * Open loop: request i is due at start + i / rate whatever happened before it, so a stall counts
 * against every request behind it. `request(i)` builds request i; a status not in `expect` fails it.
 */
export async function openLoop(base: string, opts: { rate: number; seconds: number; expect: number[]; request: (i: number) => Request }): Promise<OpenLoopResult> {
  const client: number[] = [];
  const statuses: Record<number, number> = {};
  let failed = 0;
  let firstFailure: string | undefined;
  const fail = (why: string) => {
    failed++;
    firstFailure ??= why;
  };
  const start = performance.now() + 50;
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < opts.rate * opts.seconds; i++) {
    const due = start + (i * 1000) / opts.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      send(base, opts.request(i)).then(
        (a) => {
          statuses[a.status] = (statuses[a.status] ?? 0) + 1;
          if (opts.expect.includes(a.status)) client.push(performance.now() - due);
          else fail(`${a.status} ${a.text.slice(0, 200)}`);
        },
        (err: unknown) => fail(String(err)),
      ),
    );
  }
  await Promise.all(inflight);
  return { client: client.sort((a, b) => a - b), statuses, failed, ...(firstFailure === undefined ? {} : { firstFailure }) };
}

export interface LoadSideOptions {
  name: string;
  rate: number;
  seconds: number;
  /** Where each round's figures go (the pair's notes). */
  notes: string[];
  /** The timed server this side loads (started by `setup`, or by the other side). */
  server: () => TimedServer;
  /** Request i of a round. */
  request: (round: number) => (i: number) => Request;
  /** The statuses counted as answers; any other fails the round. */
  expect: number[];
  setup?: () => Promise<void>;
  teardown?: () => Promise<void>;
}

/** Idle before each run, so that one side's background work does not fall into the other's run. */
const SETTLE_MS = 3_000;

/**
 * A side whose round is one open-loop run against a timed server, and whose figure is the p99 of
 * the server-side times of that run's requests (ms). Failed requests fail the round.
 */
export function loadSide(o: LoadSideOptions): Side {
  const series = 'load';
  return {
    name: o.name,
    ...(o.setup ? { setup: o.setup } : {}),
    ...(o.teardown ? { teardown: o.teardown } : {}),
    async run(round) {
      await sleep(SETTLE_MS);
      const server = o.server();
      await server.times(series);
      const pid = server.child.pid!;
      const cpu = [await cpuMs(pid), await cpuMs(pid, pid)];
      const build = o.request(round);
      const r = await openLoop(server.url, { rate: o.rate, seconds: o.seconds, expect: o.expect, request: (i) => { const q = build(i); return { ...q, headers: { ...q.headers, 'x-peers-series': series } }; } });
      const times = await server.times(series);
      const perRequest = (ms: number) => (ms / Math.max(1, times.length)).toFixed(2);
      const cpuUsed = `server CPU per request ${perRequest((await cpuMs(pid)) - cpu[0]!)} ms (all threads), ${perRequest((await cpuMs(pid, pid)) - cpu[1]!)} ms (the event loop's thread)`;
      const p99 = percentile(times, 0.99);
      o.notes.push(
        `Round ${round + 1}, ${o.name}: server-side p50 ${percentile(times, 0.5).toFixed(2)} / p99 ${p99.toFixed(2)} / max ${(times.at(-1) ?? NaN).toFixed(1)} ms over ${times.length} requests; ${cpuUsed}; ` +
          `the client's p99 (from each request's scheduled time) ${percentile(r.client, 0.99).toFixed(2)} ms; answers by status ${JSON.stringify(r.statuses)}; ${r.failed} failed${r.firstFailure ? ` (first: ${r.firstFailure})` : ''}.`,
      );
      if (r.failed > 0) throw new Error(`${o.name}: ${r.failed} requests failed in round ${round + 1}, first: ${r.firstFailure}`);
      return p99;
    },
  };
}
