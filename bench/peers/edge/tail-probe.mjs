/**
 * Preloaded into a server under test beside server-timer.mjs (`--import`), to find what a pair's
 * slowest requests wait behind: it records, on one clock, every request of the `load` series
 * (arrival and duration), every turn of the event loop later than 4 ms (a 1 ms interval timer),
 * every garbage collection, and every call into chDB (ChdbConnection's query/exec/command/insert:
 * when it started, how long its promise took, and how long the call held the event loop before it
 * returned that promise), every FileHandle write (the log's durable appends) with the chDB calls
 * and the fsyncs in flight when it began, every FileHandle fsync, and every late answer of a stat through libuv's thread pool. On the IPC message {type: 'tail-probe'} it answers all of it and forgets.
 */
import { subscribe } from 'node:diagnostics_channel';
import { stat } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import process from 'node:process';
import { setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';

const empty = () => ({ requests: [], gaps: [], pool: [], gcs: [], chdb: [], writes: [], syncs: [] });
let record = empty();
const started = new WeakMap();

subscribe('http.server.request.start', ({ request }) => started.set(request, performance.now()));
subscribe('http.server.response.finish', ({ request }) => {
  const t = started.get(request);
  if (t === undefined || request.headers['x-peers-series'] !== 'load') return;
  record.requests.push({ at: t, ms: performance.now() - t });
});

new PerformanceObserver((list) => {
  for (const e of list.getEntries()) record.gcs.push({ at: e.startTime, ms: e.duration, kind: e.detail?.kind });
}).observe({ entryTypes: ['gc'] });

let last = performance.now();
setInterval(() => {
  const now = performance.now();
  if (now - last > 4) record.gaps.push({ at: last, ms: now - last });
  last = now;
}, 1).unref();

// libuv's thread pool carries the log's O_DSYNC writes and chDB's native queries alike: a stat
// every 10 ms that answers more than 4 ms late (beyond the event loop's own lateness) waited for a
// free thread of the pool.
const self = fileURLToPath(import.meta.url);
setInterval(() => {
  const at = performance.now();
  stat(self, () => {
    const ms = performance.now() - at;
    if (ms > 4) record.pool.push({ at, ms });
  });
}, 10).unref();

let chdbInFlight = 0;
// The log's appends are FileHandle writes (O_DSYNC): each with the chDB calls in flight when it began.
const handle = await open(self, 'r');
const FileHandle = Object.getPrototypeOf(handle);
await handle.close();
let syncsInFlight = 0;
const timed = (name, list, onStart = () => ({}), onEnd = () => {}) => {
  const inner = FileHandle[name];
  FileHandle[name] = function (...args) {
    const at = performance.now();
    const entry = { at, ms: NaN, ...onStart() };
    list().push(entry);
    const promise = inner.apply(this, args);
    const done = () => {
      onEnd();
      entry.ms = performance.now() - at;
    };
    promise.then(done, done);
    return promise;
  };
};
timed('write', () => record.writes, () => ({ chdb: chdbInFlight, syncs: syncsInFlight }));
// fsyncs of whole files (offset commits, renames made durable): each forces a journal commit.
timed('sync', () => record.syncs, () => (syncsInFlight++, {}), () => syncsInFlight--);

const { ChdbConnection } = createRequire(import.meta.url)('chdb/connection');
for (const op of ['query', 'exec', 'command', 'insert']) {
  const inner = ChdbConnection.prototype[op];
  ChdbConnection.prototype[op] = function (params) {
    const at = performance.now();
    const promise = inner.call(this, params);
    chdbInFlight++;
    const entry = { op, sql: String(params?.query ?? '').slice(0, 60), at, syncMs: performance.now() - at, ms: NaN };
    record.chdb.push(entry);
    const done = () => {
      chdbInFlight--;
      entry.ms = performance.now() - at;
    };
    promise.then(done, done);
    return promise;
  };
}

// The clock of a --cpu-prof profile (monotonic µs) at one performance.now(), to place its samples.
const clock = { perfNow: performance.now(), hrUs: Number(process.hrtime.bigint() / 1000n) };

process.on('message', (m) => {
  if (m?.type !== 'tail-probe') return;
  process.send({ type: 'tail-probe', record: { ...record, clock } });
  record = empty();
});
