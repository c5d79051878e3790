/**
 * Pair 4, screening against the floor of its own process: POST /v1/aml/screen against GET /health
 * of the same Weir process (screening service, every shared list loaded, the audit write on),
 * each at the same open-loop rate, alternating; the figure is the server-side p99 (latency.ts).
 * Run: `npm run bench:peers -- screening` (PEERS_SECONDS per run, default 20; PEERS_ROUNDS, 3).
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadSnapshot } from '../../infra/sanctions/loader.js';
import { nameTokens } from '../../domain/screening/normalize.js';
import { REAL_LISTS_DIR } from '../../test/fixtures/sanctions/paths.js';
import { evalCases, ordinaryPeople } from '../screening-eval/set.js';
import { runPair } from './harness.js';
import { loadSide, send, startTimedServer, type TimedServer } from './edge/latency.js';
import { pairRun } from './edge/pair-run.js';

const RATE = 150;
const SECONDS = Number(process.env.PEERS_SECONDS ?? 20);
const WARM_UP = 300;
const KEY = 'peers_screen_key';

const LISTS = REAL_LISTS_DIR;
if (!LISTS) throw new Error('the screening pair needs the shared sanctions lists (/work/shared/data/sanctions)');
// The query mix of bench/screening-load.ts: perturbed listed names of every class and ordinary names, one to one.
const snapshot = await loadSnapshot(LISTS);
const listed = evalCases(snapshot.entities, 100, 77).map((c) => c.query);
const listedKeys = new Set(snapshot.entities.flatMap((e) => e.names.map((n) => nameTokens(n.name).sort().join(' '))));
const ordinary = ordinaryPeople(listedKeys, listed.length, 78);
const names = listed.flatMap((q, i) => [q, ordinary[i]!]);
const entities = snapshot.entities.length;

const screenRequest = (i: number) => ({ method: 'POST' as const, path: '/v1/aml/screen', headers: { 'x-api-key': KEY }, body: JSON.stringify({ name: names[i % names.length] }) });
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
        API_KEYS: `peers:${KEY}:enterprise`,
        RATE_LIMIT_PER_MINUTE: '100000000',
        LOG_LEVEL: 'warn',
      });
      for (let i = 0; i < WARM_UP; i++) {
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
