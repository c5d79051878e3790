/**
 * Assembles bench/RESULTS.md from bench/results/: each benchmark's output (`<name>.md`) followed by
 * the analyses of its runs (`<name>.notes.md`), so every figure in RESULTS.md is one a benchmark
 * run produced, with its command beside it, and no analysis lives only in RESULTS.md.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assembleResults } from './results-sections.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const { text, files } = await assembleResults(path.join(here, 'results'));
await writeFile(path.join(here, 'RESULTS.md'), text);
console.log(`bench/RESULTS.md: ${files.length} sections`);
