/**
 * At what nice value does chDB's work run while a query or an insert is in flight? (issue 30: the
 * transactions and screening tails; the tail profile's next step asked whether the libuv thread
 * that carries a chDB call escapes `lowerForeignThreads`, which skips threads named like Node's.)
 * Samples every thread of this process from /proc every 20 ms during a heavy query and during
 * inserts of JSONEachRow rows through the analytics client Weir uses, and prints, per thread name
 * and nice value, the CPU ticks (10 ms) spent: what runs at nice 19 yields the cores to the event
 * loop, what runs at nice 0 competes with it. Threads are told apart by id: libuv's pool threads
 * are the `node` threads seen at nice 19 at some sample (ClickHouse's `os_thread_priority` reached
 * them while a call ran); the other `node` threads are V8's.
 * Run: `node --import tsx bench/chdb-thread-priority.ts [rows per insert = 200000] [inserts = 5]`.
 */
import './scratch.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createChdbAnalytics } from '../infra/analytics/chdb.js';

const [rowsPerInsert = 200_000, inserts = 5] = process.argv.slice(2).map(Number);

interface ThreadSample {
  tid: string;
  name: string;
  nice: number;
  ticks: number;
}

function threads(): ThreadSample[] {
  const out: ThreadSample[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the name: state is field 3, utime 14, stime 15, nice 19 (1-based).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = Number(tid) === process.pid ? 'main thread' : `${readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()}#${tid}`;
      out.push({ tid, name, nice: Number(f[16]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** CPU ticks per "name at nice n" while `work` runs, each tick charged to the nice value seen at its sample. */
async function ticksByNice(work: () => Promise<unknown>): Promise<Map<string, number>> {
  const last = new Map(threads().map((t) => [t.tid, t.ticks]));
  const spent = new Map<string, number>();
  const sample = () => {
    for (const t of threads()) {
      const d = t.ticks - (last.get(t.tid) ?? t.ticks);
      last.set(t.tid, t.ticks);
      if (d > 0) spent.set(`${t.name} at nice ${t.nice}`, (spent.get(`${t.name} at nice ${t.nice}`) ?? 0) + d);
    }
  };
  const timer = setInterval(sample, 20);
  await work();
  clearInterval(timer);
  sample();
  return spent;
}

const print = (title: string, spent: Map<string, number>): void => {
  console.log(`\n${title}\n| thread | nice | CPU ticks (10 ms) |\n|---|---:|---:|`);
  for (const [k, v] of [...spent].sort((a, b) => b[1] - a[1])) {
    const [name, nice] = k.split(' at nice ');
    console.log(`| ${name} | ${nice} | ${v} |`);
  }
};

const dir = mkdtempSync(path.join(os.tmpdir(), 'chdb-priority-'));
try {
  const analytics = await createChdbAnalytics(dir, 'probe');
  await analytics.command({ query: 'CREATE TABLE t (id String, v Float64, s String) ENGINE = MergeTree ORDER BY id' });
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}; ${os.availableParallelism()} cores; node ${process.version}`);
  print(
    'A query (`SELECT sum(cityHash64(number)) FROM numbers(1e9)`, max_threads 1)',
    await ticksByNice(() => analytics.query({ query: 'SELECT sum(cityHash64(number)) FROM numbers(1000000000) SETTINGS max_threads = 1', format: 'JSONEachRow' }).then((r) => r.json())),
  );
  const rows = Array.from({ length: rowsPerInsert }, (_, i) => ({ id: `id-${i}`, v: i * 1.5, s: 'x'.repeat(50) }));
  print(
    `${inserts} inserts of ${rowsPerInsert} JSONEachRow rows`,
    await ticksByNice(async () => {
      for (let k = 0; k < inserts; k++) await analytics.insert({ table: 't', values: rows, format: 'JSONEachRow' });
    }),
  );
  await analytics.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
