/**
 * LIKE benchmark: `npx tsx bench/like.ts`. The worst patterns we could construct for the rule
 * engine's LIKE matcher (domain/rules/like.ts), each against 10,000-character strings built to
 * make a backtracking matcher explode, timed per match (median and 99th percentile of 300 runs). Target:
 * every match under 1 ms. Prints a Markdown table for bench/RESULTS.md.
 */
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { compileLike, MAX_LIKE_PATTERN } from '../domain/rules/like.js';

const N = 10_000;
const RUNS = 300;

const longest = (unit: string, extra = '') => unit.repeat(Math.floor((MAX_LIKE_PATTERN - extra.length) / unit.length)) + extra;

const cases: [string, string, string][] = [
  ["the issue's pattern `%a%a…%b` (10 stars)", '%a%a%a%a%a%a%a%a%a%a%b', 'a'.repeat(N)],
  ['the same, unanchored: `%a%a…%b%`', '%a%a%a%a%a%a%a%a%a%a%b%', 'a'.repeat(N)],
  ['most stars: `%a%a…%b%`', longest('%a', '%b%'), 'a'.repeat(N)],
  ['one segment of `_` then b', `%${'_'.repeat(MAX_LIKE_PATTERN - 3)}b%`, 'a'.repeat(N)],
  ['one literal segment of a then b', `%${'a'.repeat(MAX_LIKE_PATTERN - 3)}b%`, 'a'.repeat(N)],
  ['`a_` repeated then c, unanchored', `%${longest('a_', 'c%').slice(1)}`, 'a'.repeat(N)],
  ['segments `%ab_` on abab…', longest('%ab_', '%'), 'ab'.repeat(N / 2)],
  ['segments `%😀_` on astral characters', longest('%😀_', '%'), '😀'.repeat(N / 2)],
  ['prefix and suffix of `_`', `${'_'.repeat(MAX_LIKE_PATTERN / 2 - 1)}%${'_'.repeat(MAX_LIKE_PATTERN / 2)}`, 'x'.repeat(N)],
];

const rows: string[] = [];
let worst = 0;
for (const [what, pattern, input] of cases) {
  const match = compileLike(pattern);
  for (let i = 0; i < 20; i++) match(input);
  const times: number[] = [];
  let result = false;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    result = match(input);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(RUNS / 2)]!;
  const p99 = times[Math.floor(RUNS * 0.99)]!;
  worst = Math.max(worst, median);
  rows.push(`| ${what} | ${pattern.length} | ${input.length} | ${result} | ${(median * 1000).toFixed(0)} | ${(p99 * 1000).toFixed(0)} |`);
}

console.log(`Machine: nproc ${availableParallelism()}, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} (shared)\n`);
console.log('| case | pattern chars | input UTF-16 units | matches | median µs | p99 µs |');
console.log('| --- | ---: | ---: | --- | ---: | ---: |');
for (const r of rows) console.log(r);
console.log(`\nWorst median: ${(worst * 1000).toFixed(0)} µs (target < 1,000 µs)`);
