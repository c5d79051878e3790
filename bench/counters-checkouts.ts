/**
 * The Weir side of the counters pair alone, for weighing a change to Weir: on one broker and one
 * filled `events` topic (bench/peers/counters/filled-broker.ts), each round drains it with the Weir
 * process of each checkout in turn, the order reversed every round, exactly as the pair runs its
 * Weir side (fresh AOF-everysec Redis, settled events/s, CPU, core shares, the machine's idle share,
 * the sample checked, the store's ceiling after). Issue 31: the pair's Kafka Streams side doubles
 * the time a round takes and moves with the machine as much as Weir does; a change is weighed
 * against the code it changes, alternating.
 *
 * `node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/counters-checkouts.ts <base> [<other> ...]`
 * with checkouts as directories (git worktrees, say); this checkout runs last in the first round.
 * WEIR_CHECKOUT_ROUNDS (default 3). Writes bench/results/counters-checkouts.md.
 */
import './scratch.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { commitOf } from './lib/checkout.js';
import { fmt, median } from './peers/harness.js';
import { withFilledBroker } from './peers/counters/filled-broker.js';
import { weirSide } from './peers/counters/weir-side.js';

const here = path.resolve(import.meta.dirname, '..');
const checkouts = [...process.argv.slice(2).map((dir) => path.resolve(dir)), here];
const rounds = Number(process.env.WEIR_CHECKOUT_ROUNDS ?? 3);
const started = new Date().toISOString();
const notes: string[] = [];
const rates = new Map<string, number[]>(checkouts.map((c) => [c, []]));
/** Per checkout, each round's rate over the store's ceiling measured right after it: the machine's speed swings between rounds, this ratio much less. */
const ofCeiling = new Map<string, number[]>(checkouts.map((c) => [c, []]));

await withFilledBroker(notes, async ({ ctx }) => {
  for (let round = 0; round < rounds; round++) {
    for (const root of round % 2 === 0 ? checkouts : [...checkouts].reverse()) {
      const side = weirSide(ctx, 'redis', pathToFileURL(path.join(root, 'bench/peers/counters/weir-process.ts')).href);
      const before = notes.length;
      const rate = await side.run(round);
      rates.get(root)!.push(rate);
      ofCeiling.get(root)!.push(rate / ctx.ceilings.at(-1)!);
      for (const note of notes.splice(before)) notes.push(`${path.basename(root)}: ${note}`);
      console.log(`[counters-checkouts] round ${round + 1}/${rounds} ${path.basename(root)}: ${fmt(rate)} settled events/s, ${(rate / ctx.ceilings.at(-1)!).toFixed(2)}× the store's ceiling`);
    }
  }
});

const first = checkouts[0]!;
const report = [
  '## Counters: the Weir side of the pair alone, checkouts alternating (issue 31)',
  '',
  `Command: \`node --expose-gc --max-semi-space-size=64 --heap-growing-percent=100 --import tsx bench/counters-checkouts.ts ${process.argv.slice(2).join(' ')}\` (${started}).`,
  `Checkouts: ${checkouts.map((c) => `${path.basename(c)} ${commitOf(c)}`).join(', ')}.`,
  '',
  '| checkout | settled events/s by round | median | median / first checkout | rate / store ceiling by round | median | median / first checkout |',
  '| --- | --- | ---: | ---: | --- | ---: | ---: |',
  ...checkouts.map((c) => {
    const r = rates.get(c)!;
    const o = ofCeiling.get(c)!;
    return `| ${path.basename(c)} | ${r.map((x) => fmt(x)).join(', ')} | ${fmt(median(r))} | ${(median(r) / median(rates.get(first)!)).toFixed(2)}× | ${o.map((x) => x.toFixed(2)).join(', ')} | ${median(o).toFixed(2)} | ${(median(o) / median(ofCeiling.get(first)!)).toFixed(2)}× |`;
  }),
  '',
  ...notes.map((n) => `- ${n}`),
];
await writeFile(path.join(here, 'bench', 'results', 'counters-checkouts.md'), `${report.join('\n')}\n`);
