/**
 * Which screens make screening's slowest 1 % (issue 30, pair 4), in process and without HTTP: each
 * name of the peers pair's mix (bench/peers/screening.ts) screened `REPS` times, its time the
 * fastest of them (what the screen costs, not what another process on the machine took from it),
 * then split into preparing the query (its near spellings), candidate generation and scoring for
 * the slowest 1 % against the median name.
 * Run: `node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/screening-tail.ts`.
 */
import './scratch.js';
import os from 'node:os';
import { loadSnapshot } from '../infra/sanctions/loader.js';
import { DEFAULT_RELATIONSHIP_SETTINGS, DEFAULT_THRESHOLDS, screen } from '../domain/screening/screen.js';
import { REAL_LISTS_DIR } from '../test/fixtures/sanctions/paths.js';
import { loadMix } from './screening-eval/set.js';
import { percentile } from './lib/open-loop.js';

const REPS = 5;
if (!REAL_LISTS_DIR) throw new Error('needs the shared sanctions lists');
const snapshot = await loadSnapshot(REAL_LISTS_DIR);
const names = loadMix(snapshot.entities);
const index = snapshot.index;
const opts = { minScore: 0.6, weakApart: true };

const fastest = (f: () => unknown): number => {
  let best = Infinity;
  for (let r = 0; r < REPS; r++) {
    const t0 = performance.now();
    f();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
};

for (const name of names) screen(snapshot, index.prepare(name), { name }, DEFAULT_THRESHOLDS, DEFAULT_RELATIONSHIP_SETTINGS); // JIT
const rows = names.map((name) => {
  const prepared = index.prepare(name);
  const pool = index.retrieve(prepared, opts);
  const alt = prepared.alternative ? index.retrieve(prepared.alternative, opts) : [];
  return {
    name,
    screen: fastest(() => screen(snapshot, index.prepare(name), { name }, DEFAULT_THRESHOLDS, DEFAULT_RELATIONSHIP_SETTINGS)),
    prepare: fastest(() => index.prepare(name)),
    retrieve: fastest(() => (index.retrieve(prepared, opts), prepared.alternative && index.retrieve(prepared.alternative, opts))),
    score: fastest(() => (index.score(prepared, pool, opts), prepared.alternative && index.score(prepared.alternative, alt, opts))),
    tokens: prepared.tokens.length,
    aligned: pool.length + alt.length,
  };
});
const by = [...rows].sort((a, b) => a.screen - b.screen);
const slow = by.slice(Math.floor(by.length * 0.99));
const mid = by.slice(Math.floor(by.length * 0.45), Math.floor(by.length * 0.55));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const line = (label: string, set: typeof rows) =>
  `| ${label} | ${set.length} | ${mean(set.map((r) => r.screen)).toFixed(2)} | ${mean(set.map((r) => r.prepare)).toFixed(2)} | ${mean(set.map((r) => r.retrieve)).toFixed(2)} | ${mean(set.map((r) => r.score)).toFixed(2)} | ${mean(set.map((r) => r.tokens)).toFixed(1)} | ${mean(set.map((r) => r.aligned)).toFixed(0)} |`;
const times = by.map((r) => r.screen);
console.log(`${names.length} names, ${snapshot.entities.length} entities, fastest of ${REPS}; load ${os.loadavg()[0]!.toFixed(2)}`);
console.log(`screen ms: p50 ${percentile(times, 0.5).toFixed(2)} p90 ${percentile(times, 0.9).toFixed(2)} p99 ${percentile(times, 0.99).toFixed(2)} max ${times.at(-1)!.toFixed(2)}`);
console.log('| names | n | screen ms | prepare ms | candidate generation ms | scoring ms | tokens | names aligned |\n|---|---:|---:|---:|---:|---:|---:|---:|');
console.log(line('the slowest 1 %', slow));
console.log(line('around the median', mid));
console.log('the slowest names:');
for (const r of by.slice(-12).reverse()) console.log(`  ${r.screen.toFixed(2)} ms (prepare ${r.prepare.toFixed(2)}, retrieve ${r.retrieve.toFixed(2)}, score ${r.score.toFixed(2)}; ${r.tokens} tokens, ${r.aligned} aligned) ${r.name}`);
