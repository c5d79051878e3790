/**
 * Compile time of 500 KB scripts of every hostile shape we could build (target: each under 200 ms):
 * one POST /api/compile runs on the event loop, so a slow shape stalls every other request of the
 * process. Writes bench/results/video-compile-shapes.md.
 *
 *   npx tsx bench/video-compile-shapes.ts
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../domain/video/compile.js';
import { SCRIPT_SHAPES, SHAPE_CHARS } from '../test/support/video-script-shapes.js';

const ROUNDS = 5;
const TARGET_MS = 200;
const here = path.dirname(fileURLToPath(import.meta.url));

const load = () => os.loadavg()[0]!.toFixed(1);
const loadBefore = load();
const rows: string[] = [];
let worst = 0;
for (const shape of SCRIPT_SHAPES) {
  const { source, variables } = shape.build(SHAPE_CHARS);
  compile(source, { variables });
  const cpu: number[] = [];
  let diagnostics = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const c0 = process.cpuUsage();
    diagnostics = compile(source, { variables }).diagnostics.length;
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const median = [...cpu].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
  worst = Math.max(worst, Math.max(...cpu));
  rows.push(`| ${shape.name} | ${(source.length / 1024).toFixed(0)} | ${diagnostics.toLocaleString('en')} | ${Math.min(...cpu).toFixed(1)} | ${median.toFixed(1)} | ${Math.max(...cpu).toFixed(1)} |`);
}

const md = `## Video: compile time of hostile script shapes

Command: \`npx tsx bench/video-compile-shapes.ts\`. Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${os.cpus().length} cores (nproc),
Node ${process.version}; 1-minute load average ${loadBefore} before and ${load()} after the run.

Each shape is a script of about ${(SHAPE_CHARS / 1000).toFixed(0)} KB (the largest the API accepts), built by
\`test/support/video-script-shapes.ts\`; ${ROUNDS} compiles after one warm-up, in one process. CPU time is user +
system of this process during the compile (the garbage collector included).

| shape | KiB | diagnostics | min CPU (ms) | median CPU (ms) | max CPU (ms) |
|---|---:|---:|---:|---:|---:|
${rows.join('\n')}

Target: every shape under ${TARGET_MS} ms. Worst compile: ${worst.toFixed(1)} ms.
`;
await writeFile(path.join(here, 'results', 'video-compile-shapes.md'), md);
console.log(md);
