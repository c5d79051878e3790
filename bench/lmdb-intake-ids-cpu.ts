/**
 * The LMDB window store's CPU per counter event on the event-id path (what pair 3's intake and
 * pipeline ask of it for each event: `reserveIds` at intake, then `apply` with `once`), two checkouts
 * alternating in fresh processes, three rounds. Each run: 40,000 new ids in calls of 500 over a
 * 24-hour id window (five slots searched per lookup), into a store already holding 50,000 ids in
 * each of its five slots (the steady state of a day's traffic, not an empty store).
 * `WEIR_CPU_BASE=/path/to/other/worktree node --import tsx bench/lmdb-intake-ids-cpu.ts`
 * Prints a markdown table: CPU µs per event (process.cpuUsage, every thread) and the 1-minute load.
 */
import './scratch.js';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { commitOf } from './lib/checkout.js';

const EVENTS = 40_000;
const CALL = 500;
const TTL_MS = 86_400_000;
const SLOT_MS = 6 * 3_600_000;
const PER_SLOT = 50_000;

async function runOne(root: string): Promise<void> {
  const { createLmdbWindowStore } = (await import(pathToFileURL(path.join(root, 'infra/windows/lmdb/index.ts')).href)) as typeof import('../infra/windows/lmdb/index.js');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-lmdb-ids-'));
  const store = await createLmdbWindowStore({ dir: path.join(dir, 'state.lmdb'), housekeepingIntervalMs: 3_600_000 });
  const realNow = Date.now;
  try {
    // Fill the four older slots and this one, as a day of traffic leaves them.
    for (let s = 4; s >= 0; s--) {
      Date.now = () => realNow() - s * SLOT_MS;
      for (let i = 0; i < PER_SLOT; i += 20_000) await store.reserveIds('org', Array.from({ length: 20_000 }, (_, k) => `old-${s}-${i + k}`), TTL_MS);
    }
    Date.now = realNow;
    const cpu = process.cpuUsage();
    for (let i = 0; i < EVENTS; i += CALL) {
      const ids = Array.from({ length: CALL }, (_, k) => `new-${i + k}`);
      await store.reserveIds('org', ids, TTL_MS);
      await store.apply(ids.map((id, k) => ({ entity: { scope: 'org', id: `e${(i + k) % 1_000}` }, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }], once: { id, ttlMs: TTL_MS } })));
    }
    const used = process.cpuUsage(cpu);
    console.log(JSON.stringify({ usPerEvent: (used.user + used.system) / EVENTS }));
  } finally {
    Date.now = realNow;
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const self = fileURLToPath(import.meta.url);
if (process.argv[2] === '--one') {
  await runOne(process.argv[3]!);
} else {
  const base = process.env.WEIR_CPU_BASE;
  if (!base) throw new Error('set WEIR_CPU_BASE to the checkout to compare with (e.g. a worktree of main)');
  const checkouts = [
    { name: 'base', root: path.resolve(base) },
    { name: 'this', root: path.resolve(path.dirname(self), '..') },
  ];
  const rows: string[] = [];
  const figures: Record<string, number[]> = { base: [], this: [] };
  for (let round = 1; round <= 3; round++) {
    for (const c of round % 2 === 1 ? checkouts : [...checkouts].reverse()) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--one', c.root], { encoding: 'utf8' });
      const { usPerEvent } = JSON.parse(out.trim().split('\n').at(-1)!) as { usPerEvent: number };
      figures[c.name]!.push(usPerEvent);
      rows.push(`| ${round} | ${c.name} | ${usPerEvent.toFixed(1)} | ${os.loadavg()[0]!.toFixed(1)} |`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  console.log(`Checkouts: base ${commitOf(checkouts[0]!.root)}, this ${commitOf(checkouts[1]!.root)}. ${EVENTS} new ids in calls of ${CALL}, 5 slots of ${PER_SLOT} ids each.\n`);
  console.log('| round | checkout | CPU µs per event (reserveIds + apply once) | 1-min load |\n| ---: | --- | ---: | ---: |');
  console.log(rows.join('\n'));
  console.log(`\nMedian: base ${median(figures.base!).toFixed(1)} µs, this ${median(figures.this!).toFixed(1)} µs (${(median(figures.this!) / median(figures.base!)).toFixed(2)}×).`);
}
