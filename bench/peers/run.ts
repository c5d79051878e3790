/**
 * `npm run bench:peers [-- <id> …]`: runs every pair script bench/peers/<id>.ts (or the ones named),
 * one after the other, each in its own process with the node options of `npm start`, then assembles
 * bench/results/peers.md from every pair's result. A failing pair does not stop the others; the run
 * exits non-zero and peers.md names it.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNodeOptions } from '../bench-server.js';
import { assemblePeers } from './harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const notPairs = new Set(['harness', 'run', 'tail-probe']);
const known = readdirSync(here)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .filter((id) => !notPairs.has(id))
  .sort();
const asked = process.argv.slice(2);
const unknown = asked.filter((id) => !known.includes(id));
if (unknown.length > 0) {
  console.error(`no pair named ${unknown.join(', ')}; the pairs are: ${known.join(', ')}`);
  process.exit(2);
}

const failed: Record<string, string> = {};
for (const id of asked.length > 0 ? asked : known) {
  const t0 = performance.now();
  console.log(`== pair ${id}`);
  const child = spawn(process.execPath, ['--expose-gc', ...startNodeOptions(), '--import', 'tsx', path.join(here, `${id}.ts`)], { stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c, signal) => resolve(signal ? null : c)));
  const minutes = ((performance.now() - t0) / 60_000).toFixed(1);
  if (code === 0) console.log(`== pair ${id} done in ${minutes} min`);
  else failed[id] = `exited with ${code ?? 'a signal'} after ${minutes} min (${new Date().toISOString()})`;
}
assemblePeers({ failed });
if (Object.keys(failed).length > 0) {
  console.error(`failed pairs: ${Object.keys(failed).join(', ')}`);
  process.exit(1);
}
