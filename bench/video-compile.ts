/**
 * Compile time of a generated 1,000-scene script (target: under 100 ms). Writes
 * bench/results/video-compile.md; `npx tsx bench/collect.ts` puts it in bench/RESULTS.md.
 *
 *   npx tsx bench/video-compile.ts
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../domain/video/compile.js';

const SCENES = 1_000;
const ROUNDS = 50;
const here = path.dirname(fileURLToPath(import.meta.url));

/** Every directive, and a template variable, in every scene; moods and transitions vary. */
function script(scenes: number): string {
  const kinds = ['fade', 'dissolve', 'wipeleft', 'slideup', 'cut'];
  const lines = ['film "Benchmark {{n}}"', 'mood technical', 'aspect 16:9', 'audio asset:bed volume 0.6 fade 2s', ''];
  for (let i = 0; i < scenes; i++) {
    lines.push(
      `scene "Scene ${i}" ${3 + (i % 2)}s`,
      `  background #${(i * 2654435761 % 0xffffff).toString(16).padStart(6, '0')}`,
      `  title "Chapter ${i}: {{product}}"`,
      '  text "Scored before it settles"',
      `  image asset:img-${i % 50} fit contain`,
      `  transition ${kinds[i % kinds.length]} 0.5s`,
      '',
    );
  }
  return lines.join('\n');
}

const source = script(SCENES);
const variables = { n: 1, product: 'Weir' };
const first = compile(source, { variables });
if (!first.ok) throw new Error(`benchmark script does not compile: ${JSON.stringify(first.diagnostics.slice(0, 3))}`);

const load = () => os.loadavg()[0]!.toFixed(1);
const loadBefore = load();
const wall: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  compile(source, { variables });
  wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(1);
const row = (what: string, xs: number[]) => `| ${what} | ${q(xs, 0)} | ${q(xs, 0.5)} | ${q(xs, 0.95)} | ${q(xs, 1)} |`;
const lines = source.split('\n').length;

const md = `## Video: script compile time

Command: \`npx tsx bench/video-compile.ts\`. Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${os.cpus().length} cores (nproc),
Node ${process.version}; 1-minute load average ${loadBefore} before and ${load()} after the run.

Workload: a generated script of ${SCENES.toLocaleString('en')} scenes (${lines.toLocaleString('en')} lines, ${(source.length / 1024).toFixed(0)} KiB): every
scene has a background colour, a title with a template variable, a text line, an image and a transition; the
film has a mood alias and an audio bed. One compile is lexing, parsing, variables, layout (text wrapped to
the frame), timings and every check, into the render graph (${first.renderGraph.scenes.length} scenes, ${first.renderGraph.film.durationSeconds} s of film).
${ROUNDS} rounds after one warm-up compile, in one process.

Wall time counts the waits for a core on a machine this loaded; CPU time (user + system of this process
during the compile, which also includes the garbage collector) is closer to what the compiler costs.

| ${SCENES.toLocaleString('en')}-scene compile | min (ms) | median (ms) | p95 (ms) | max (ms) |
|---|---:|---:|---:|---:|
${row('wall time', wall)}
${row('CPU time', cpu)}

Target: under 100 ms.
`;
await writeFile(path.join(here, 'results', 'video-compile.md'), md);
console.log(md);
