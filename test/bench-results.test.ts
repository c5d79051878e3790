import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleResults, orderSections, SECTION_ORDER, STANDALONE_REPORTS } from '../bench/results-sections.js';

/**
 * `npm run bench` ends by rewriting bench/RESULTS.md from bench/results/. Whatever RESULTS.md holds
 * must therefore come from there, or the next run erases it: the committed file must be exactly
 * what collect.ts assembles.
 */
const bench = path.resolve(import.meta.dirname, '../bench');

describe('bench results', () => {
  it('RESULTS.md is exactly what collect.ts assembles from bench/results', async () => {
    const { text } = await assembleResults(path.join(bench, 'results'));
    expect(await readFile(path.join(bench, 'RESULTS.md'), 'utf8')).toBe(text);
  });

  it('keeps every section of bench/results, each benchmark output before its notes', async () => {
    const files = (await readdir(path.join(bench, 'results'))).filter((f) => f.endsWith('.md') && !STANDALONE_REPORTS.includes(f));
    const { text, files: assembled } = await assembleResults(path.join(bench, 'results'));
    expect([...assembled].sort()).toEqual([...files].sort());
    for (const f of files) expect(text).toContain((await readFile(path.join(bench, 'results', f), 'utf8')).trim());
    expect(orderSections(['risk.notes.md', 'zeta.md', 'risk.md', 'bus.md'])).toEqual(['bus.md', 'risk.md', 'risk.notes.md', 'zeta.md']);
  });

  it('names every section in the reading order, and no benchmark writes a notes file', async () => {
    const files = (await readdir(path.join(bench, 'results'))).filter((f) => f.endsWith('.md') && !STANDALONE_REPORTS.includes(f));
    for (const f of files) expect(SECTION_ORDER, f).toContain(f.replace(/(\.notes)?\.md$/, ''));
    // The assembler names the notes files; a benchmark that did could overwrite an analysis.
    const benchmarks = (await readdir(bench)).filter((f) => f.endsWith('.ts') && !['collect.ts', 'results-sections.ts'].includes(f));
    for (const b of benchmarks) expect(await readFile(path.join(bench, b), 'utf8'), b).not.toContain('.notes.md');
  });
});
