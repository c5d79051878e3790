/**
 * What the counters flusher costs Redis (issue 31). Per drain, a fresh redis-server (AOF everysec,
 * as the pair's) is filled with the counters pair's workload (bench/peers/counters/workload.ts) by
 * the pipeline's own createEventApplier, six partitions at once, batches of 2,000, with the
 * pipeline's own createFlusher (writing the counter table in chDB as the product opens it) either
 * ticking through the fill as the service runs it, or stopped: the difference in Redis CPU per
 * event is what the flusher costs a pair-like drain, its direct work and what it makes the apply do
 * (entities it took re-enter the queues). After a fill with the flusher stopped, it runs two
 * cycles: the first a flush tick later (every entity dirty, and the expiries due by then), the
 * second the sixty ticks of the next ten minutes (the expiries due in them only). Around each
 * cycle: Redis CPU (INFO cpu; the idle server's own rate over the cycle's wall time taken off) and
 * INFO commandstats, and per window-store method the flusher calls (it calls them one after
 * another) the Redis CPU spent while it ran. Figures per flushed entity.
 *
 * `node --import tsx bench/counters-flusher-redis.ts` (this checkout alone), or with
 * WEIR_FLUSH_BASE=/path/to/other/checkout both, alternating; WEIR_FLUSH_ROUNDS (default 3) the
 * rounds, WEIR_FLUSH_AOF (default everysec; `no` for none) the persistence, and
 * WEIR_PEERS_COUNTERS_EVENTS / _ENTITIES the workload (default the pair's 500,000 over 50,000).
 * Writes bench/results/counters-flusher-redis.md.
 */
import './scratch.js';
import os from 'node:os';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { Redis } from 'ioredis';
import type { Platform } from '../infra/platform.js';
import type { WindowStore } from '../infra/windows/types.js';
import type { TopicEvent } from '../schemas/http/counters.js';
import type { Decoded } from '../pipelines/stage.js';
import type { CompiledConfig } from '../domain/counters/compile.js';
import type { FlushRow } from '../pipelines/counters/counter-table.js';
import { createChdbAnalytics } from '../infra/analytics/chdb.js';
import { createCounterTable } from '../pipelines/counters/counter-table.js';
import { counterTableName } from '../domain/tenant-names.js';
import { columnOf } from '../domain/counters/compile.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { commitOf } from './lib/checkout.js';
import { counterPipelineOf } from './lib/counter-pipeline.js';
import { commandStats, type CommandStats } from './lib/redis-commandstats.js';
import { reportLines } from './lib/report.js';

const { EVENTS, ENTITIES, PARTITIONS, eventOf, ORG, counterConfig } = await import('./peers/counters/workload.js');

const BATCH = 2_000;
/** Ticks of the second cycle: ten minutes of ten-second ticks. */
const EXPIRY_TICKS = 60;
const ROUNDS = Number(process.env.WEIR_FLUSH_ROUNDS ?? 3);
const AOF = process.env.WEIR_FLUSH_AOF ?? 'everysec';
const METHODS = ['takeDue', 'readMany', 'schedule', 'unschedule'] as const;
type Method = (typeof METHODS)[number];
const here = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const checkouts = [...(process.env.WEIR_FLUSH_BASE ? [{ name: 'base', root: path.resolve(process.env.WEIR_FLUSH_BASE) }] : []), { name: 'this', root: here }];

/** Redis's own CPU (µs, INFO cpu) over one persistent connection: a new one per reading would cost the server its accept. */
function cpuProbe(url: string) {
  const r = new Redis(url);
  return {
    async micros(): Promise<number> {
      const info = await r.info('cpu');
      const seconds = (name: string): number => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
      return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
    },
    resetStats: () => r.config('RESETSTAT'),
    /** Waits out an AOF rewrite the fill started, so its fork does not land in a cycle. */
    async settle(): Promise<void> {
      while (/aof_rewrite_in_progress:1/.test(await r.info('persistence'))) await new Promise((resolve) => setTimeout(resolve, 200));
    },
    /** Redis CPU one reading of INFO cpu costs (µs): taken off the figures, once per reading. */
    async cost(): Promise<number> {
      const before = await this.micros();
      for (let i = 0; i < 100; i++) await this.micros();
      return ((await this.micros()) - before) / 101;
    },
    close: () => r.disconnect(),
  };
}

/** The store with the Redis CPU of each flusher method summed (the flusher awaits one call before the next). */
function metered(store: WindowStore, probe: ReturnType<typeof cpuProbe>, probeCost: number, spent: Map<Method, { calls: number; micros: number }>): WindowStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function' || !(METHODS as readonly (string | symbol)[]).includes(prop)) return value;
      return async (...args: unknown[]) => {
        const before = await probe.micros();
        const answer = (await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)) as unknown;
        const s = spent.get(prop as Method) ?? { calls: 0, micros: 0 };
        s.calls += 1;
        s.micros += (await probe.micros()) - before - probeCost;
        spent.set(prop as Method, s);
        return answer;
      };
    },
  });
}

interface Cycle {
  entities: number;
  wallMs: number;
  /** Redis CPU over the cycle, the idle rate over its wall time taken off (µs). */
  micros: number;
  /** Redis CPU of the idle server a second, and of one reading of INFO cpu (µs), both taken off `micros`. */
  idlePerSecond: number;
  probeCost: number;
  stats: CommandStats;
  methods: Map<Method, { calls: number; micros: number }>;
}

interface Drain {
  /** Redis CPU per event of the fill (µs). */
  fillPerEvent: number;
  /** Entities the flusher wrote during the fill, per event (0 with the flusher stopped). */
  flushedPerEvent: number;
  /** With the flusher stopped during the fill: its two cycles after it. */
  cycles: Cycle[];
}

const analytics = await createChdbAnalytics(path.join(os.tmpdir(), 'chdb'), 'flusher_redis');
const table = createCounterTable(analytics);

/**
 * One drain on a fresh redis-server: the fill, the flusher either ticking through it as the service
 * runs it (`ticking`) or stopped, then run for two cycles with its CPU measured.
 */
async function drain(root: string, ticking: boolean): Promise<Drain> {
  const { createRedisWindowStore, createEventApplier, createFlusher, compileConfig, counterConfigSchema, systemClock } = await counterPipelineOf(root);

  const redis = await startRedisServer(AOF === 'no' ? [] : ['--appendonly', 'yes', '--appendfsync', AOF]);
  const windows = createRedisWindowStore({ url: redis.url, commandTimeoutMs: 60_000 });
  const probe = cpuProbe(redis.url);
  try {
    const compiled: CompiledConfig = compileConfig(ORG, counterConfigSchema.parse({ version: 1, ...counterConfig }), []);
    // A fresh counter table a drain, as a fresh pair round has.
    await analytics.command({ query: `DROP TABLE IF EXISTS \`${counterTableName(ORG, compiled.config.table_name)}\`` });
    await table.ensure(ORG, compiled.config.table_name, compiled.config.counters.map(columnOf));
    const log = pino({ level: 'warn' });
    const platform = { windows, clock: systemClock, log, metrics: new Registry() } as unknown as Platform;
    const written = { rows: 0 };
    const counted = { read: table.read, ensure: table.ensure, write: async (t: string, o: string, rows: FlushRow[]) => ((written.rows += rows.length), table.write(t, o, rows)) };
    const configs = { known: () => [compiled], onChange: (listener: (c: CompiledConfig) => void) => (listener(compiled), () => undefined) };
    const newFlusher = (p: Platform) => createFlusher({ platform: p, configs: configs as never, table: counted as never });
    const apply = createEventApplier({ platform, configs: { get: async () => compiled }, flusher: { flushNow: async () => undefined } });
    const partitions: Decoded<TopicEvent>[][] = Array.from({ length: PARTITIONS }, () => []);
    // Started a second past a flush tick, so a fill of about ten seconds meets one tick, late in it.
    await new Promise((resolve) => setTimeout(resolve, compiled.flushMs + 1_000 - (Date.now() % compiled.flushMs)));
    const filledAt = Date.now();
    for (let n = 0; n < EVENTS; n++) partitions[(n % ENTITIES) % PARTITIONS]!.push({ value: eventOf(n, filledAt), message: {} as Decoded<TopicEvent>['message'] });
    const ticker = ticking ? newFlusher(platform) : undefined;
    ticker?.start();
    const fillBefore = await probe.micros();
    await Promise.all(
      partitions.map(async (records) => {
        for (let i = 0; i < records.length; i += BATCH) await apply(records.slice(i, i + BATCH));
      }),
    );
    const fillPerEvent = ((await probe.micros()) - fillBefore) / EVENTS;
    const flushedPerEvent = written.rows / EVENTS;
    if (ticker) {
      await ticker.stop();
      return { fillPerEvent, flushedPerEvent, cycles: [] };
    }
    await probe.settle();
    // What the idle server spends a second (its cron, active expiry over the entities' TTLs).
    const idleBefore = await probe.micros();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idlePerSecond = ((await probe.micros()) - idleBefore) / 2;
    const probeCost = await probe.cost();

    // The flusher's clock runs ahead, a tick at a time: one tick for the first cycle (every entity
    // dirty), sixty more for the second (ten minutes of expiries, each at its own tick as the
    // service meets them: enough of them for a figure per entity).
    let shift = 0;
    const clock = { now: () => Date.now() + shift };
    const methods = new Map<Method, { calls: number; micros: number }>();
    const flusher = newFlusher({ ...platform, windows: metered(windows, probe, probeCost, methods), clock } as Platform);
    const cycles: Cycle[] = [];
    for (const ticks of [1, EXPIRY_TICKS]) {
      written.rows = 0;
      methods.clear();
      await probe.resetStats();
      const started = performance.now();
      const before = await probe.micros();
      for (let t = 0; t < ticks; t++) {
        shift += compiled.flushMs;
        await flusher.tick();
      }
      const micros = (await probe.micros()) - before;
      const wallMs = performance.now() - started;
      // Each metered call read INFO cpu twice, and the cycle once more.
      const readings = 1 + 2 * [...methods.values()].reduce((n, m) => n + m.calls, 0);
      cycles.push({ entities: written.rows, wallMs, micros: micros - (idlePerSecond * wallMs) / 1000 - readings * probeCost, idlePerSecond, probeCost, stats: await commandStats(redis.url), methods: new Map(methods) });
    }
    return { fillPerEvent, flushedPerEvent, cycles };
  } finally {
    probe.close();
    await windows.close();
    await redis.kill();
  }
}

const { lines: report, say } = reportLines();

say(`## Counters: what the flusher costs Redis (issue 31)

Command: \`WEIR_PEERS_COUNTERS_EVENTS=${EVENTS} WEIR_PEERS_COUNTERS_ENTITIES=${ENTITIES}${process.env.WEIR_FLUSH_BASE ? ` WEIR_FLUSH_BASE=${process.env.WEIR_FLUSH_BASE}` : ''} node --import tsx bench/counters-flusher-redis.ts\` (${new Date().toISOString().slice(0, 16)} UTC).
Checkouts: ${checkouts.map((c) => `${c.name} ${commitOf(c.root)}`).join(', ')}. Per drain a fresh redis-server (AOF ${AOF}) filled with ${EVENTS} events over
${ENTITIES} entities of the pair's workload by createEventApplier (batches of ${BATCH}, ${PARTITIONS} partitions at once), starting a second past a
flush tick, with the flusher either ticking as the service runs it (writing the counter table in chDB) or stopped.
After a fill with the flusher stopped, two cycles of it: cycle 1 a flush tick later (every entity dirty, and the
expiries due by then), cycle 2 the sixty ticks of the ten minutes after (the expiries due in them). Redis CPU from
INFO cpu; a cycle's has the idle server's rate over its wall time and the readings' own cost (INFO cpu) taken off;
per method, the Redis CPU while the flusher's call of it ran.
`);
const rows: { checkout: string; round: number; ticking: boolean; d: Drain; load: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? [false, true] : [true, false];
  for (const c of round % 2 === 0 ? checkouts : [...checkouts].reverse()) {
    for (const ticking of order) {
      const load = os.loadavg()[0]!;
      const d = await drain(c.root, ticking);
      rows.push({ checkout: c.name, round: round + 1, ticking, d, load });
      console.log(`${c.name} round ${round + 1}, flusher ${ticking ? 'ticking' : 'stopped'}: fill ${d.fillPerEvent.toFixed(1)} µs/event, ${d.flushedPerEvent.toFixed(3)} flushed/event; ${d.cycles.map((y) => `${y.entities} entities ${(y.micros / Math.max(1, y.entities)).toFixed(1)} µs each`).join(', ')}; load ${load.toFixed(1)}`);
    }
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
say(`### The fill, with the flusher stopped and ticking

| round | checkout | flusher | 1-min load | Redis CPU (µs/event) | entities flushed per event |
| ---: | --- | --- | ---: | ---: | ---: |`);
for (const { checkout, round, ticking, d, load } of rows) say(`| ${round} | ${checkout} | ${ticking ? 'ticking' : 'stopped'} | ${load.toFixed(1)} | ${d.fillPerEvent.toFixed(1)} | ${d.flushedPerEvent.toFixed(3)} |`);
for (const c of checkouts) {
  const of = (ticking: boolean) => rows.filter((r) => r.checkout === c.name && r.ticking === ticking).map((r) => r.d);
  const stopped = median(of(false).map((d) => d.fillPerEvent));
  const ticked = median(of(true).map((d) => d.fillPerEvent));
  const flushed = median(of(true).map((d) => d.flushedPerEvent));
  say(`\n${c.name}: median ${stopped.toFixed(1)} µs/event stopped, ${ticked.toFixed(1)} ticking (${(ticked - stopped).toFixed(1)} µs/event more, ${flushed.toFixed(3)} entities flushed per event: ${flushed > 0 ? ((ticked - stopped) / flushed).toFixed(1) : '–'} µs per flushed entity).`);
}

const cycled = rows.filter((r) => !r.ticking);
const perEntity = (y: Cycle, micros: number): string => (y.entities === 0 ? '–' : (micros / y.entities).toFixed(2));
say(`\n### The flusher's cycles after a fill

| round | checkout | idle Redis µs/s | INFO µs | cycle | entities flushed | wall ms | Redis µs/entity | ${METHODS.map((m) => `${m} µs/entity (calls)`).join(' | ')} |
| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ${METHODS.map(() => '---:').join(' | ')} |`);
for (const { checkout, round, d } of cycled) {
  d.cycles.forEach((y, i) => {
    const methods = METHODS.map((m) => {
      const s = y.methods.get(m);
      return s ? `${perEntity(y, s.micros)} (${s.calls})` : '';
    });
    say(`| ${round} | ${checkout} | ${y.idlePerSecond.toFixed(0)} | ${y.probeCost.toFixed(0)} | ${i + 1} | ${y.entities} | ${y.wallMs.toFixed(0)} | ${perEntity(y, y.micros)} | ${methods.join(' | ')} |`);
  });
}

for (const at of [0, 1]) {
  const ys = cycled.map((r) => r.d.cycles[at]!);
  const names = [...new Set(ys.flatMap((y) => [...y.stats.keys()]))].filter((n) => n !== 'info' && n !== 'config|resetstat').sort((a, b) => (ys[0]!.stats.get(b)?.usec ?? 0) - (ys[0]!.stats.get(a)?.usec ?? 0));
  say(`\nCycle ${at + 1} by command (INFO commandstats), µs per flushed entity (calls per flushed entity); EVALSHA is the scripts with the commands they call, which are listed beside it too:

| round | checkout | ${names.join(' | ')} |
| ---: | --- | ${names.map(() => '---:').join(' | ')} |`);
  for (const { checkout, round, d } of cycled) {
    const y = d.cycles[at]!;
    const cells = names.map((n) => {
      const s = y.stats.get(n);
      return s ? `${(s.usec / y.entities).toFixed(2)} (${(s.calls / y.entities).toFixed(3)})` : '';
    });
    say(`| ${round} | ${checkout} | ${cells.join(' | ')} |`);
  }
}
await writeFile(path.join(here, 'bench', 'results', 'counters-flusher-redis.md'), `${report.join('\n')}\n`);
process.exit(0);
