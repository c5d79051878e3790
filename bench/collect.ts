/**
 * Assembles bench/RESULTS.md from the sections each benchmark writes to bench/results/<name>.md,
 * so every figure in RESULTS.md is one a benchmark run produced, with its command beside it.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const order = ['bus', 'windows', 'counters', 'rules', 'screening'];

const files = (await readdir(path.join(here, 'results'))).filter((f) => f.endsWith('.md'));
files.sort((a, b) => {
  const ia = order.indexOf(a.replace(/\.md$/, ''));
  const ib = order.indexOf(b.replace(/\.md$/, ''));
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
});
const sections = await Promise.all(files.map((f) => readFile(path.join(here, 'results', f), 'utf8')));
const header = `# Benchmark results

Each section below was written by the benchmark named in it (\`npx tsx bench/<name>.ts\`) on this
project's machine kind (2 cores). Re-run a benchmark, then \`npx tsx bench/collect.ts\`, to refresh.
The raw bus and window-store figures are the ceilings the pipelines are measured against.
`;
await writeFile(path.join(here, 'RESULTS.md'), [header, ...sections.map((s) => s.trim())].join('\n\n') + '\n');
console.log(`bench/RESULTS.md: ${files.length} sections`);
