/**
 * Housekeeping stall benchmark of the embedded window store (LMDB):
 * `node --import tsx bench/housekeeping.ts` (WEIR_HK_IDS, default 10,000,000 remembered ids;
 * WEIR_HK_ENTITIES, default 1,000,000 entities of three series).
 *
 * Fills a store through its own API in large calls, then runs one full housekeeping pass at an
 * instant where every id slot has expired (all ids deleted) and the hourly sweep reads every
 * entity and lease, while a client keeps calling the store (one apply with an event id and one
 * read every 2 ms, as the counters pipeline and a rule would). Reports the longest event-loop
 * delay during the pass (perf_hooks.monitorEventLoopDelay, 1 ms resolution) and the latency of
 * the client's calls meanwhile; the target of issue 11 is a delay under 20 ms. Prints a Markdown
 * table ready for bench/RESULTS.md.
 */
import './scratch.js';
import { damonState } from './damon.js';
import { mkdtemp, stat } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createLmdbWindowStore } from '../infra/windows/lmdb/index.js';
import type { ApplyRequest, SeriesUpdate } from '../infra/windows/types.js';

const IDS = Number(process.env.WEIR_HK_IDS ?? 10_000_000);
const ENTITIES = Number(process.env.WEIR_HK_ENTITIES ?? 1_000_000);
const ID_CALL = 20_000;
const ENTITY_CALL = 5_000;
const ID_TTL_MS = 86_400_000;
const SCOPE = 'hk-org';
const HOUR = Math.floor(Date.now() / 3_600_000);

const seriesOf = (i: number): SeriesUpdate[] => [
  { kind: 'sum', series: 'txn_1h', bucket: HOUR, delta: 1, floor: HOUR },
  { kind: 'sum', series: 'amount_24h', bucket: HOUR, delta: (i % 1000) + 0.5, floor: HOUR - 23 },
  { kind: 'max', series: 'last_txn', value: Date.now() },
];

const ms = (ns: number) => (ns / 1e6).toFixed(1);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

async function main(): Promise<void> {
  const dir = path.join(await mkdtemp(path.join(tmpdir(), 'weir-hk-')), 'state.lmdb');
  // The timer never fires during the run: the pass below is started by hand.
  const store = await createLmdbWindowStore({ dir, housekeepingIntervalMs: 3_600_000 });
  const load0 = loadavg()[0]!;

  const fillDelay = monitorEventLoopDelay({ resolution: 1 });
  fillDelay.enable();
  let t = performance.now();
  for (let i = 0; i < IDS; i += ID_CALL) {
    await store.reserveIds(SCOPE, Array.from({ length: Math.min(ID_CALL, IDS - i) }, (_, k) => `evt-${i + k}`), ID_TTL_MS);
  }
  const idFill = (performance.now() - t) / 1000;
  t = performance.now();
  for (let i = 0; i < ENTITIES; i += ENTITY_CALL) {
    await store.apply(Array.from({ length: Math.min(ENTITY_CALL, ENTITIES - i) }, (_, k): ApplyRequest => ({ entity: { scope: SCOPE, id: `user-${i + k}` }, updates: seriesOf(i + k) })));
  }
  const entityFill = (performance.now() - t) / 1000;
  fillDelay.disable();
  const fileBytes = (await stat(dir)).blocks * 512;
  console.error(`filled ${IDS} ids in ${idFill.toFixed(0)} s, ${ENTITIES} entities in ${entityFill.toFixed(0)} s`);

  // Every slot the fill wrote has expired 31 hours from now (24-hour window, six-hour slots).
  const passAt = Date.now() + 31 * 3_600_000;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const callMs: number[] = [];
  let passing = true;
  let n = 0;
  const client = (async () => {
    while (passing) {
      const started = performance.now();
      const i = n++;
      await store.apply([{ entity: { scope: SCOPE, id: `user-${(i * 7919) % ENTITIES}` }, updates: seriesOf(i), once: { id: `live-${i}`, ttlMs: ID_TTL_MS } }]);
      await store.read({ scope: SCOPE, id: `user-${(i * 104_729) % ENTITIES}` }, [{ kind: 'sum', series: 'amount_24h', floor: HOUR - 23 }]);
      callMs.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  delay.enable();
  t = performance.now();
  const removed = await store.housekeep(passAt);
  const passSeconds = (performance.now() - t) / 1000;
  delay.disable();
  passing = false;
  await client;
  await store.close();
  callMs.sort((a, b) => a - b);

  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log(`Command: \`node --import tsx bench/housekeeping.ts\` (WEIR_HK_IDS=${IDS}, WEIR_HK_ENTITIES=${ENTITIES})  `);
  console.log(`Date: ${new Date().toISOString()}. Machine: nproc ${availableParallelism()}, Node ${process.version}; 1-minute load average ${load0.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end; ${damonState()}`);
  console.log('');
  console.log('| | embedded window store (LMDB) |');
  console.log('|---|---:|');
  console.log(`| remembered ids / entities of three series | ${fmt(IDS)} / ${fmt(ENTITIES)} |`);
  console.log(`| fill through the store's API (ids in calls of ${fmt(ID_CALL)}, entities in calls of ${fmt(ENTITY_CALL)}) | ${fmt(IDS / idFill)} ids/s, ${fmt(ENTITIES / entityFill)} entities/s; LMDB file ${(fileBytes / 2 ** 20).toFixed(0)} MiB |`);
  console.log(`| housekeeping pass (every id expired, every entity and lease read) | ${fmt(removed)} keys removed in ${passSeconds.toFixed(1)} s |`);
  console.log(`| longest event-loop delay during the pass (p99, p50) | **${ms(delay.max)} ms** (${ms(delay.percentile(99))} ms, ${ms(delay.percentile(50))} ms) |`);
  console.log(`| other calls during the pass (apply with an event id + read; p50 / p99 / max) | ${fmt(callMs.length)} calls: ${pct(callMs, 0.5).toFixed(1)} / ${pct(callMs, 0.99).toFixed(1)} / ${(callMs.at(-1) ?? NaN).toFixed(1)} ms |`);
  console.log(`| longest event-loop delay while filling (large calls, not housekeeping) | ${ms(fillDelay.max)} ms |`);
}

await main();
