/**
 * Does chDB writing its parts slow the embedded log's durable appends on the same filesystem?
 * (issue 30: the transactions and screening tails.) A worker thread appends 200-byte records to a
 * file under TMPDIR with O_DSYNC, as the log's writer does, 500 times a second, timing each
 * write itself (writeSync: the kernel's time, no event loop in it), while the main thread inserts
 * 100 rows into a ReplacingMergeTree in chDB every 200 ms, as the decisions consumer does. The
 * modes alternate in child processes (chDB binds one data directory per process): `none` (no
 * inserts), `disk` (chDB's data beside the log) and `tmpfs` (chDB's data in /dev/shm). Prints the
 * appends' p50 / p99 / max per mode and round.
 * Run: `node --import tsx bench/sync-entanglement.ts [seconds per run = 15] [rounds = 2]`.
 */
import './scratch.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { percentile } from './lib/open-loop.js';

const ROWS = 100;
const INSERT_EVERY_MS = 200;
const APPENDS_PER_SECOND = 500;
type Mode = 'none' | 'disk' | 'tmpfs';

/** The appender, run in a worker thread (plain JS): O_DSYNC writes at a fixed rate, each timed alone; posts the sorted times. */
const APPENDER = `
const { closeSync, openSync, writeSync, constants } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const fd = openSync(workerData.file, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC);
const record = Buffer.alloc(200, 7);
const pause = new Int32Array(new SharedArrayBuffer(4));
const times = [];
const start = performance.now();
for (let i = 0; i < workerData.seconds * ${APPENDS_PER_SECOND}; i++) {
  const due = start + (i * 1000) / ${APPENDS_PER_SECOND};
  while (performance.now() < due) Atomics.wait(pause, 0, 0, 0.5);
  const t0 = performance.now();
  writeSync(fd, record);
  times.push(performance.now() - t0);
}
closeSync(fd);
parentPort.postMessage(times.sort((a, b) => a - b));
`;

async function child(mode: Mode, seconds: number, tmpfsDir: string): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sync-entanglement-'));
  const worker = new Worker(APPENDER, { eval: true, workerData: { file: path.join(dir, 'log.seg'), seconds } });
  const done = new Promise<number[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  let inserts = 0;
  let stop = false;
  if (mode !== 'none') {
    const { createClient } = await import('@clickhouse/client');
    const { createChdbConnection } = await import('chdb/connection');
    const chdbDir = mode === 'tmpfs' ? tmpfsDir : path.join(dir, 'clickhouse');
    const client = createClient({ connection: createChdbConnection({ path: chdbDir }) as never });
    await client.command({ query: 'CREATE TABLE IF NOT EXISTS d (org String, id String, at DateTime64(3), body String) ENGINE = ReplacingMergeTree ORDER BY (org, id)' });
    void (async () => {
      while (!stop) {
        const at = Date.now();
        await client.insert({ table: 'd', format: 'JSONEachRow', values: Array.from({ length: ROWS }, (_, i) => ({ org: 'o', id: `${at}-${i}`, at, body: 'x'.repeat(400) })) });
        inserts++;
        await new Promise((r) => setTimeout(r, INSERT_EVERY_MS));
      }
    })();
  }
  const times = await done;
  stop = true;
  const f = (x: number) => x.toFixed(2);
  console.log(`${mode}: ${times.length} appends, p50 ${f(percentile(times, 0.5))} p99 ${f(percentile(times, 0.99))} max ${f(times.at(-1)!)} ms; ${inserts} chDB inserts; load ${os.loadavg()[0]!.toFixed(2)}`);
  process.exit(0);
}

if (process.argv[2] === '--child') await child(process.argv[3] as Mode, Number(process.argv[4]), process.argv[5]!);
else {
  const seconds = Number(process.argv[2] ?? 15);
  const rounds = Number(process.argv[3] ?? 2);
  for (let round = 0; round < rounds; round++) {
    for (const mode of (round % 2 ? ['tmpfs', 'disk', 'none'] : ['none', 'disk', 'tmpfs']) as Mode[]) {
      // Made and removed here: chDB may still write into its directory while the child exits.
      const tmpfsDir = mkdtempSync('/dev/shm/sync-entanglement-');
      const c = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', mode, String(seconds), tmpfsDir], { stdio: 'inherit' });
      await new Promise((r) => c.once('exit', r));
      rmSync(tmpfsDir, { recursive: true, force: true });
    }
  }
}
