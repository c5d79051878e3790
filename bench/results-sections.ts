import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * bench/RESULTS.md is assembled, never edited: each benchmark writes `bench/results/<name>.md`, and
 * what was learned from its runs (reruns, analyses, causes found) lives beside it in
 * `bench/results/<name>.notes.md`, which no benchmark writes. A rerun then refreshes the figures
 * without erasing the analyses.
 */

/** Sections in reading order: the machine first, then the stores, the services, video last. */
export const SECTION_ORDER = [
  'tail',
  'bus',
  'windows',
  'windows-cluster',
  'window-state',
  'counters',
  'counters-store',
  'lmdb-intake-ids-cpu',
  'counters-consumer-cpu',
  'compiled-product',
  'counters-consumer-avro-cpu',
  'counters-consumer',
  'counters-redis-split',
  'counters-flusher-redis',
  'counters-overlap',
  'counters-apply-frame',
  'counters-redis-floor',
  'counters-redis-ids',
  'counters-checkouts',
  'redis-known',
  'counters-lmdb-cpu',
  'counters-lmdb-records',
  'counters-lmdb-ids',
  'lmdb-cache',
  'rules',
  'like',
  'screening',
  'screening-eval',
  'screening-load',
  'screening-ab',
  'edge-limit',
  'analytics',
  'risk',
  'webhooks',
  'webhooks-halves',
  'video-compile',
  'video-compile-shapes',
  'video-render',
  'video-preprocess',
  'video-clips',
  'video-auth',
];

/** Reports of their own, assembled by another tool: `peers.md` by bench/peers/harness.ts (`npm run bench:peers`). */
export const STANDALONE_REPORTS = ['peers.md'];

export const RESULTS_HEADER = `# Benchmark results

Each section below was written by the benchmark named in it (\`npx tsx bench/<name>.ts\`) on this
project's machine kind (2 cores), followed by the analyses of its runs. Both live in
\`bench/results/\`: \`<name>.md\` is the benchmark's output, \`<name>.notes.md\` what was learned from it.
Re-run a benchmark, then \`npx tsx bench/collect.ts\`, to refresh; never edit this file.
The raw bus and window-store figures are the ceilings the pipelines are measured against.
Weir against its peers (Kafka Streams, itself alone) is in [results/peers.md](results/peers.md).
`;

const rank = (base: string) => {
  const i = SECTION_ORDER.indexOf(base);
  return i < 0 ? SECTION_ORDER.length : i;
};
const baseOf = (file: string) => file.replace(/(\.notes)?\.md$/, '');

/** The files of bench/results in assembly order: by section, a benchmark's output before its notes, unknown sections last by name. */
export function orderSections(files: string[]): string[] {
  return files
    .filter((f) => f.endsWith('.md') && !STANDALONE_REPORTS.includes(f))
    .sort((a, b) => rank(baseOf(a)) - rank(baseOf(b)) || baseOf(a).localeCompare(baseOf(b)) || Number(a.endsWith('.notes.md')) - Number(b.endsWith('.notes.md')));
}

/** RESULTS.md as assembled from the files of `dir`. */
export async function assembleResults(dir: string): Promise<{ text: string; files: string[] }> {
  const files = orderSections(await readdir(dir));
  const sections = await Promise.all(files.map((f) => readFile(path.join(dir, f), 'utf8')));
  return { text: [RESULTS_HEADER, ...sections.map((s) => s.trim())].join('\n\n') + '\n', files };
}
