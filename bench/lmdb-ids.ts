/**
 * The LMDB window store's event ids alone (issue 31): CPU per new id and bytes per id, two
 * checkouts alternating, three rounds. `WEIR_CPU_BASE=/path/to/other/worktree node --import tsx
 * bench/lmdb-ids.ts [ids]` (default 100,000). Each checkout runs in a process of its own per round:
 * a fresh store reserves `ids` new ids of one organization, 500 a call, with a 24-hour window, once
 * with the clock in a slot whose window lies in one span of eight slots (lmdb/ids.ts) and once in
 * one whose window straddles two; CPU is the process's user + system time over those calls (lmdb's
 * write thread included). Bytes are the store's pages in use (branch, leaf, overflow) over the ids
 * after the second phase. Prints a markdown table.
 */
import './scratch.js';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { commitOf } from './lib/checkout.js';

const IDS = Number(process.argv[2] ?? 100_000);
const CALL = 500;
const DAY_MS = 86_400_000;
const SLOT_MS = 6 * 3_600_000;
/** A slot's start whose window lies in one span (last slot 8k + 7), and one whose window straddles two (8k + 2). */
const PHASES = { 'one span': (8 * 10_400 + 7) * SLOT_MS, 'two spans': (8 * 10_400 + 2) * SLOT_MS };

interface Sample {
  phase: string;
  cpuPerId: number;
  bytesPerId: number;
}

async function child(root: string): Promise<Sample[]> {
  const { createLmdbWindowStore } = (await import(pathToFileURL(path.join(root, 'infra/windows/lmdb/index.ts')).href)) as typeof import('../infra/windows/lmdb/index.js');
  const { open } = await import('lmdb');
  const realNow = Date.now.bind(Date);
  const samples: Sample[] = [];
  for (const [phase, at] of Object.entries(PHASES)) {
    const offset = at + 3_600_000 - realNow();
    Date.now = () => realNow() + offset;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-lmdb-ids-'));
    const file = path.join(dir, 'state.lmdb');
    const store = await createLmdbWindowStore({ dir: file, housekeepingIntervalMs: 3_600_000 });
    const cpu = process.cpuUsage();
    for (let i = 0; i < IDS; i += CALL) await store.reserveIds('acme', Array.from({ length: CALL }, (_, k) => `${phase}-${i + k}`), DAY_MS);
    const used = process.cpuUsage(cpu);
    await store.close();
    const db = open({ path: file, compression: false });
    const stats = db.getStats() as { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
    await db.close();
    await rm(dir, { recursive: true, force: true });
    const bytes = stats.pageSize * (stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages);
    samples.push({ phase, cpuPerId: (used.user + used.system) / IDS, bytesPerId: bytes / IDS });
  }
  return samples;
}

if (process.env.WEIR_IDS_ROOT) {
  process.stdout.write(JSON.stringify(await child(process.env.WEIR_IDS_ROOT)));
} else {
  const base = process.env.WEIR_CPU_BASE;
  if (!base) throw new Error('set WEIR_CPU_BASE to the checkout to compare with');
  const here = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
  const checkouts = [
    { name: 'base', root: path.resolve(base) },
    { name: 'this', root: here },
  ];
  const rows: string[] = [];
  for (let round = 1; round <= 3; round++) {
    for (const c of round % 2 ? checkouts : [...checkouts].reverse()) {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), String(IDS)], {
        cwd: c.root,
        env: { ...process.env, WEIR_IDS_ROOT: c.root },
      });
      const load = os.loadavg()[0]!.toFixed(1);
      for (const s of JSON.parse(stdout) as Sample[]) rows.push(`| ${round} | ${c.name} | ${s.phase} | ${s.cpuPerId.toFixed(2)} | ${s.bytesPerId.toFixed(1)} | ${load} |`);
    }
  }
  const commits = checkouts.map((c) => `${c.name} ${commitOf(c.root)}`);
  console.log(`Checkouts: ${commits.join(', ')}; ${IDS} new ids a phase, ${CALL} a call, 24-hour window.\n`);
  console.log('| round | checkout | phase | CPU (µs/new id) | bytes/id | 1-min load |\n| ---: | --- | --- | ---: | ---: | ---: |');
  console.log(rows.join('\n'));
}
