/**
 * Pure screen() latency of this version against another checkout (e.g. main), in one process on one
 * query mix (as bench/screening.ts: perturbed listed names, ordinary names, listed names as
 * written), six rounds alternating which goes first, so a busy machine weighs on both alike.
 * Prints each round and the ratios of the medians, p99s and means over all rounds.
 * Run: `npx tsx bench/screening-ab.ts <checkout of the other version, with its node_modules>`.
 */
import { loadSnapshot as loadNew } from '../infra/sanctions/loader.js';
import * as nw from '../domain/screening/screen.js';
import { nameTokens } from '../domain/screening/normalize.js';
import { negativeCases, positiveCases } from '../test/fixtures/sanctions/eval-set.js';
import { REAL_LISTS_DIR } from '../test/fixtures/sanctions/paths.js';
const base = process.argv[2];
if (!base) throw new Error('usage: npx tsx bench/screening-ab.ts <checkout of the other version>');
if (!REAL_LISTS_DIR) throw new Error('the shared sanctions data folder (../shared/data/sanctions) is missing');
const { loadSnapshot: loadOld } = await import(`${base}/infra/sanctions/loader.ts`);
const old = await import(`${base}/domain/screening/screen.ts`);
const dir = REAL_LISTS_DIR;
const sNew = await loadNew(dir);
const sOld = await loadOld(dir);
const positives = positiveCases(sNew.entities, 300, 7);
const listedKeys = new Set(sNew.entities.flatMap((e) => e.names.map((n) => nameTokens(n.name).sort().join(' '))));
const queries = [...positives.map((c) => c.query), ...negativeCases(listedKeys, 1500, 11), ...positiveCases(sNew.entities, 250, 13).map((c) => c.original)];
const time = (f: (q: string) => void) => { const xs: number[] = []; for (const q of queries) { const t = performance.now(); f(q); xs.push(performance.now() - t); } return xs; };
const runNew = (q: string) => nw.screen(sNew, sNew.index.prepare(q), { name: q }, nw.DEFAULT_THRESHOLDS, nw.DEFAULT_RELATIONSHIP_SETTINGS);
const runOld = (q: string) => old.screen(sOld, sOld.index.prepare(q), { name: q }, old.DEFAULT_THRESHOLDS, old.DEFAULT_RELATIONSHIP_SETTINGS);
time(runNew); time(runOld);
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * xs.length)]!;
const rows: string[] = [];
const all = { old: [] as number[], new: [] as number[] };
for (let round = 1; round <= 6; round++) {
  const order = round % 2 ? ['old', 'new'] : ['new', 'old'];
  for (const which of order) {
    const xs = time(which === 'old' ? runOld : runNew);
    all[which as 'old' | 'new'].push(...xs);
    rows.push(`round ${round} ${which}: median ${q(xs, 0.5).toFixed(3)} ms, p99 ${q(xs, 0.99).toFixed(3)} ms, mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3)} ms`);
  }
}
console.log(rows.join('\n'));
const m = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`${queries.length} names x 6 rounds each. median old ${q(all.old, 0.5).toFixed(3)} new ${q(all.new, 0.5).toFixed(3)} ratio ${(q(all.new, 0.5) / q(all.old, 0.5)).toFixed(3)}; p99 old ${q(all.old, 0.99).toFixed(3)} new ${q(all.new, 0.99).toFixed(3)} ratio ${(q(all.new, 0.99) / q(all.old, 0.99)).toFixed(3)}; mean ratio ${(m(all.new) / m(all.old)).toFixed(3)}`);
process.exit(0);
