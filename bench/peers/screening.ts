/**
 * Pair 4, screening against the floor of its own process: POST /v1/aml/screen against GET /health
 * of the same Weir process (screening service, every shared list loaded, the audit write on),
 * each at the same open-loop rate, alternating; the figure is the server-side p99 (latency.ts).
 * Run: `npm run bench:peers -- screening` (PEERS_SECONDS per run, default 20; PEERS_ROUNDS, 3).
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadSnapshot } from '../../infra/sanctions/loader.js';
import { REAL_LISTS_DIR } from '../../test/fixtures/sanctions/paths.js';
import { loadMix } from '../screening-eval/set.js';
import { runPair } from './harness.js';
import { loadSide, send, startTimedServer, type TimedServer } from './edge/latency.js';
import { pairRun } from './edge/pair-run.js';

const RATE = 150;
const SECONDS = Number(process.env.PEERS_SECONDS ?? 20);
const WARM_UP = 300;
// Keys of one organization in turn, as bench/screening-load.ts: a plan's 200 screens a second is per
// key and per fixed second, and a stall on a loaded machine lets the open loop's backlog arrive in one.
const KEYS = Array.from({ length: 4 }, (_, i) => `peers_screen_key_${i}`);

const LISTS = REAL_LISTS_DIR;
if (!LISTS) throw new Error('the screening pair needs the shared sanctions lists (/work/shared/data/sanctions)');
// The query mix of bench/screening-load.ts: perturbed listed names of every class and ordinary names, one to one.
const snapshot = await loadSnapshot(LISTS);
const names = loadMix(snapshot.entities);
const entities = snapshot.entities.length;

const screenRequest = (i: number) => ({ method: 'POST' as const, path: '/v1/aml/screen', headers: { 'x-api-key': KEYS[i % KEYS.length]! }, body: JSON.stringify({ name: names[i % names.length] }) });
const healthRequest = () => ({ method: 'GET' as const, path: '/health', headers: {} });

const notes = [
  `One Weir process (role all, embedded defaults: the audit write is an embedded-log append with fsync before each answer; chDB) with every shared list loaded (${entities} entities), loaded by a node:http keep-alive client in the pair's process, open loop at ${RATE} requests/s for ${SECONDS} s a run after ${WARM_UP} warm-up screens; ${names.length} names (perturbed listed names of every class and ordinary names, alternating), as bench/screening-load.ts. GET /health answers the process's readiness and its parts' health (the bus, the window store, a query to chDB with a 1 s deadline, the consumers): 503 when a part does not answer in time, counted as an answer of the floor. Server-side time is taken inside the process by a preloaded timer (node:http's diagnostics channels, request start to response finish).`,
];
let server: TimedServer | undefined;
await runPair({
  id: 'screening',
  order: 4,
  title: `Screening: POST /v1/aml/screen vs GET /health of the same process, ${RATE}/s`,
  metric: 'server-side p99 ms',
  higherIsBetter: false,
  goal: { ratio: 2, text: 'Weir ≤ 2× the floor' },
  weir: loadSide({
    name: 'POST /v1/aml/screen',
    rate: RATE,
    seconds: SECONDS,
    notes,
    server: () => server!,
    request: () => screenRequest,
    expect: [200],
    async setup() {
      server = await startTimedServer(new URL('./edge/weir-screening-server.ts', import.meta.url).href, {
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'weir-peers-screening-')),
        SANCTIONS_DATA_DIR: LISTS,
        API_KEYS: KEYS.map((k) => `peers:${k}:enterprise`).join(','),
        RATE_LIMIT_PER_MINUTE: '100000000',
        LOG_LEVEL: 'warn',
      });
      // Paced at the pair's rate: sent back to back, screens exceed the enterprise plan's 200 per second (429).
      for (let i = 0; i < WARM_UP; i++) {
        await sleep(1000 / RATE);
        const a = await send(server.url, screenRequest(i));
        if (a.status !== 200) throw new Error(`screen answered ${a.status} in the warm-up: ${a.text.slice(0, 300)}`);
      }
    },
    teardown: async () => server?.stop(),
  }),
  peer: loadSide({ name: 'GET /health of the same process (the floor)', rate: RATE, seconds: SECONDS, notes, server: () => server!, request: () => healthRequest, expect: [200, 503] }),
  ...pairRun('screening', 'PEERS_SECONDS (20) per run, PEERS_ROUNDS (3)'),
  guarantees: [
    'POST /v1/aml/screen: authenticated and rate-limited, the name screened against every loaded list, the screen audited (an embedded-log append with fsync) before the answer.',
    'GET /health: no authentication; reports readiness and the health of the process\'s parts.',
  ],
  notes,
});
process.exit(0);
