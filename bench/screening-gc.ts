/**
 * Per-screen garbage (issue 16): screens the load bench's names in process, three rounds, and
 * counts the young-generation collections (scavenges) and their pauses, which land in the tail of
 * whichever requests they stop. Prints one line per stage: prepare, prepare + candidate
 * generation, the whole screen.
 * Run: `node --import tsx bench/screening-gc.ts`.
 */
import os from 'node:os';
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import { loadSnapshot } from '../infra/sanctions/loader.js';
import { DEFAULT_RELATIONSHIP_SETTINGS, DEFAULT_THRESHOLDS, screen } from '../domain/screening/screen.js';
import { REAL_LISTS_DIR } from '../test/fixtures/sanctions/paths.js';
import { evalCases, ordinaryPeople } from './screening-eval/set.js';

const s = await loadSnapshot(REAL_LISTS_DIR!);
const listed = evalCases(s.entities, 100, 77).map((c) => c.query);
const ordinary = ordinaryPeople(new Set(), listed.length, 78);
const names = listed.flatMap((q, i) => [q, ordinary[i]!]);
const stages: [string, (name: string) => unknown][] = [
  ['prepare', (n) => s.index.prepare(n)],
  ['prepare + candidate generation', (n) => s.index.retrieve(s.index.prepare(n), { minScore: 0.6 })],
  ['whole screen', (n) => screen(s, s.index.prepare(n), { name: n }, DEFAULT_THRESHOLDS, DEFAULT_RELATIONSHIP_SETTINGS)],
];
let pauses: number[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) pauses.push(e.duration);
}).observe({ entryTypes: ['gc'] });
console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}; ${names.length} names, 3 rounds`);
for (const [label, run] of stages) {
  names.forEach(run); // warm-up
  await new Promise((r) => setTimeout(r, 50));
  pauses = [];
  for (let round = 0; round < 3; round++) names.forEach(run);
  await new Promise((r) => setTimeout(r, 50));
  const total = pauses.reduce((a, b) => a + b, 0);
  console.log(`${label}: ${((pauses.length * 1000) / (names.length * 3)).toFixed(1)} scavenges per 1000 screens, ${total.toFixed(0)} ms of pauses, longest ${Math.max(0, ...pauses).toFixed(1)} ms`);
}
process.exit(0);
