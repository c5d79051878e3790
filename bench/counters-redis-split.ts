/**
 * Where Redis's CPU goes when the counter pipeline drains a backlog (issue 31). The pipeline's own
 * code (createEventApplier and createFlusher, imported from each checkout) drains the counters
 * pair's workload (bench/peers/counters/workload.ts) in this process, without Kafka: six partitions
 * (events keyed by entity, as intake keys them) handled at once, batches of BATCH events each, the
 * flusher ticking as the service runs it and writing to a counter table that keeps nothing. Each
 * drain gets a fresh redis-server, AOF off or appendfsync everysec (the pair's). Reported per event:
 * Redis CPU (INFO cpu), this process's CPU (the pipeline's client side: planning, framing, the
 * flusher) and INFO commandstats (µs per event by command: EVALSHA is the scripts with
 * the commands they call, which are listed beside it too).
 *
 * `WEIR_SPLIT_BASE=/path/to/other/checkout node --import tsx bench/counters-redis-split.ts`
 * (without a base, this checkout alone). WEIR_PEERS_COUNTERS_EVENTS / _ENTITIES size the backlog
 * (default 200,000 over 20,000); WEIR_SPLIT_MODES (default `everysec,no`) the AOF modes (`no`, or an
 * appendfsync policy, `:norewrite` after it turning the automatic AOF rewrite off),
 * WEIR_SPLIT_ROUNDS (default 2) the rounds.
 * Writes bench/results/counters-redis-split.md.
 */
import './scratch.js';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { Redis } from 'ioredis';
import type { Platform } from '../infra/platform.js';
import type { TopicEvent } from '../schemas/http/counters.js';
import type { Decoded } from '../pipelines/stage.js';
import type { CompiledConfig } from '../domain/counters/compile.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { redisCpuMicros } from './peers/support/cpu.js';
import { commitOf } from './lib/checkout.js';
import { counterPipelineOf } from './lib/counter-pipeline.js';
import { commandStats, type CommandStats } from './lib/redis-commandstats.js';
import { reportLines } from './lib/report.js';

process.env.WEIR_PEERS_COUNTERS_EVENTS ??= '200000';
process.env.WEIR_PEERS_COUNTERS_ENTITIES ??= '20000';
const { EVENTS, ENTITIES, PARTITIONS, eventOf, ORG, counterConfig } = await import('./peers/counters/workload.js');

const BATCH = 2_000;
const ROUNDS = Number(process.env.WEIR_SPLIT_ROUNDS ?? 2);
const here = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const checkouts = [...(process.env.WEIR_SPLIT_BASE ? [{ name: 'base', root: path.resolve(process.env.WEIR_SPLIT_BASE) }] : []), { name: 'this', root: here }];
const modes = (process.env.WEIR_SPLIT_MODES ?? 'everysec,no').split(',');

interface Drain {
  cpu: number;
  client: number;
  rate: number;
  stats: CommandStats;
}

async function drain(root: string, mode: string, filledAt: number): Promise<Drain> {
  const { createRedisWindowStore, createEventApplier, createFlusher, compileConfig, counterConfigSchema, systemClock } = await counterPipelineOf(root);

  const [fsync, rewrite] = mode.split(':');
  const redis = await startRedisServer(fsync === 'no' ? [] : ['--appendonly', 'yes', '--appendfsync', fsync!, ...(rewrite === 'norewrite' ? ['--auto-aof-rewrite-percentage', '0'] : [])]);
  const windows = createRedisWindowStore({ url: redis.url, commandTimeoutMs: 60_000 });
  try {
    const compiled: CompiledConfig = compileConfig(ORG, counterConfigSchema.parse({ version: 1, ...counterConfig }), []);
    const log = pino({ level: 'warn' });
    const platform = { windows, clock: systemClock, log, metrics: new Registry() } as unknown as Platform;
    const configs = { get: async () => compiled, known: () => [compiled], onChange: (listener: (c: CompiledConfig) => void) => (listener(compiled), () => undefined) };
    const table = { read: async () => new Map(), write: async () => undefined };
    const flusher = createFlusher({ platform, configs: configs as never, table: table as never });
    const apply = createEventApplier({ platform, configs, flusher });
    // Event n's entity is n mod ENTITIES: a partition is a set of entities, as keying by entity makes it.
    const partitions: Decoded<TopicEvent>[][] = Array.from({ length: PARTITIONS }, () => []);
    // Each message's place in its partition, as a consumer hands it over (a store may claim ids by it).
    for (let n = 0; n < EVENTS; n++) {
      const p = (n % ENTITIES) % PARTITIONS;
      const message = { topic: 'events', partition: p, offset: String(partitions[p]!.length) } as Decoded<TopicEvent>['message'];
      partitions[p]!.push({ value: eventOf(n, filledAt), message });
    }
    const r = new Redis(redis.url);
    await r.config('RESETSTAT');
    r.disconnect();
    const cpuBefore = await redisCpuMicros(redis.url);
    const clientBefore = process.cpuUsage();
    const started = performance.now();
    flusher.start();
    await Promise.all(
      partitions.map(async (records) => {
        for (let i = 0; i < records.length; i += BATCH) await apply(records.slice(i, i + BATCH));
      }),
    );
    const rate = EVENTS / ((performance.now() - started) / 1000);
    await flusher.stop();
    const client = process.cpuUsage(clientBefore);
    return { cpu: ((await redisCpuMicros(redis.url)) - cpuBefore) / EVENTS, client: (client.user + client.system) / EVENTS, rate, stats: await commandStats(redis.url) };
  } finally {
    await windows.close();
    await redis.kill();
  }
}

const { lines: report, say } = reportLines();

say(`## Counters: where Redis's CPU goes in the drain (issue 31)

Command: \`WEIR_PEERS_COUNTERS_EVENTS=${EVENTS} WEIR_PEERS_COUNTERS_ENTITIES=${ENTITIES}${process.env.WEIR_SPLIT_BASE ? ` WEIR_SPLIT_BASE=${process.env.WEIR_SPLIT_BASE}` : ''} node --import tsx bench/counters-redis-split.ts\` (${new Date().toISOString().slice(0, 16)} UTC).
Checkouts: ${checkouts.map((c) => `${c.name} ${commitOf(c.root)}`).join(', ')}. ${EVENTS} events over ${ENTITIES} entities of the pair's workload, applied by
createEventApplier in batches of ${BATCH}, ${PARTITIONS} partitions at once, the flusher ticking; no Kafka. A fresh redis-server per drain.
`);
const filledAt = Date.now();
const rows: { checkout: string; mode: string; d: Drain; load: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of modes) {
    for (const c of round % 2 === 0 ? checkouts : [...checkouts].reverse()) {
      const load = os.loadavg()[0]!;
      const d = await drain(c.root, mode, filledAt);
      rows.push({ checkout: c.name, mode, d, load });
      console.log(`${c.name} ${mode}: Redis ${d.cpu.toFixed(1)} µs/event, client ${d.client.toFixed(1)}, ${d.rate.toFixed(0)} events/s, load ${load.toFixed(1)}`);
    }
  }
}

const names = [...new Set(rows.flatMap((r) => [...r.d.stats.keys()]))].sort((a, b) => (rows[0]!.d.stats.get(b)?.usec ?? 0) - (rows[0]!.d.stats.get(a)?.usec ?? 0));
say(`| checkout | AOF | 1-min load | events/s | Redis CPU (µs/event) | client CPU (µs/event) | ${names.join(' | ')} |`);
say(`| --- | --- | ---: | ---: | ---: | ---: | ${names.map(() => '---:').join(' | ')} |`);
for (const { checkout, mode, d, load } of rows) {
  const cells = names.map((n) => {
    const s = d.stats.get(n);
    return s ? `${(s.usec / EVENTS).toFixed(2)} (${(s.calls / EVENTS).toFixed(2)})` : '';
  });
  say(`| ${checkout} | ${mode} | ${load.toFixed(1)} | ${d.rate.toFixed(0)} | ${d.cpu.toFixed(1)} | ${d.client.toFixed(1)} | ${cells.join(' | ')} |`);
}
say(`\nCommand cells: µs per event (calls per event), INFO commandstats; commands called by a script count both in EVALSHA and on their own.`);
await writeFile(path.join(here, 'bench', 'results', 'counters-redis-split.md'), `${report.join('\n')}\n`);
process.exit(0);
