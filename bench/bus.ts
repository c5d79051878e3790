/**
 * Raw bus throughput: the ceilings the pipelines are measured against. For each bus (the embedded
 * log on a temp dir; Kafka when WEIR_BENCH_KAFKA_BROKERS or WEIR_TEST_KAFKA_BROKERS is set):
 *   - produce with one caller awaiting each send of 500 messages,
 *   - produce with 8 concurrent callers (concurrent sends share a write or produce request),
 *   - consume and commit everything with a new group and a handler that does nothing.
 * Each is run WEIR_BENCH_BUS_ROUNDS times (default 3); the table shows the best and the median.
 * Writes bench/results/bus.md. Run: `npx tsx bench/bus.ts` (WEIR_BENCH_BUS_MESSAGES to change N).
 */
import './scratch.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createEmbeddedBus } from '../infra/bus/embedded/index.js';
import { createKafkaBus } from '../infra/bus/kafka/index.js';
import type { Bus, OutgoingMessage } from '../infra/bus/types.js';

const MESSAGES = Number(process.env.WEIR_BENCH_BUS_MESSAGES ?? 200_000);
const BATCH = 500;
const PARTITIONS = 6;
const VALUE_BYTES = 200;
const ENTITIES = 5_000;
const CONCURRENT_CALLERS = 8;
const ROUNDS = Number(process.env.WEIR_BENCH_BUS_ROUNDS ?? 3);
const log = pino({ level: 'warn' });
const run = `${process.pid}-${Date.now()}`;

/** A counter event of about VALUE_BYTES bytes, keyed by entity as the pipelines key them. */
function message(i: number): OutgoingMessage {
  const body = { org_id: 'org_bench', entity_id: `entity-${i % ENTITIES}`, event_id: `e-${i}`, amount: i % 997, ts: 1_700_000_000_000 + i };
  const json = JSON.stringify(body);
  const padded = JSON.stringify({ ...body, pad: 'x'.repeat(Math.max(0, VALUE_BYTES - json.length - 10)) });
  return { key: `org_bench:${body.entity_id}`, value: Buffer.from(padded) };
}

const batches = (from: number, count: number): OutgoingMessage[][] => {
  const out: OutgoingMessage[][] = [];
  for (let start = from; start < from + count; start += BATCH) {
    out.push(Array.from({ length: Math.min(BATCH, from + count - start) }, (_, i) => message(start + i)));
  }
  return out;
};

const rate = (n: number, ms: number): number => Math.round((n * 1000) / ms);

async function produceSequential(bus: Bus, topic: string, work: OutgoingMessage[][]): Promise<number> {
  const t0 = performance.now();
  for (const b of work) await bus.send(topic, b);
  return performance.now() - t0;
}

async function produceConcurrent(bus: Bus, topic: string, work: OutgoingMessage[][]): Promise<number> {
  const queue = [...work];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENT_CALLERS }, async () => {
      for (let b = queue.shift(); b; b = queue.shift()) await bus.send(topic, b);
    }),
  );
  return performance.now() - t0;
}

/** Subscribes a new group; returns the time to the first batch and from it to the last commit. */
async function consumeAll(bus: Bus, topic: string, expected: number): Promise<{ joinMs: number; consumeMs: number }> {
  const groupId = `bench-${run}-${topic}`;
  let seen = 0;
  let first = 0;
  const t0 = performance.now();
  const subscription = await bus.subscribe({
    groupId,
    topics: [topic],
    eachBatch: async (batch) => {
      if (first === 0) first = performance.now();
      seen += batch.messages.length;
    },
  });
  // Done when every offset is committed, not merely handed to the handler.
  for (;;) {
    if (seen >= expected) {
      const lag = await bus.lag(groupId, topic);
      if (lag.every((p) => p.lag === 0)) break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const done = performance.now();
  await subscription.stop();
  return { joinMs: first - t0, consumeMs: done - first };
}

interface Round {
  produce1: number;
  produceN: number;
  consume: number;
  joinMs: number;
}

interface Row {
  bus: string;
  rounds: Round[];
}

async function measureRound(bus: Bus, round: number): Promise<Round> {
  const [seqTopic, concTopic] = ['seq', 'conc'].map((t) => `bench-bus-${t}-${run}-${round}`) as [string, string];
  await bus.ensureTopics([seqTopic, concTopic].map((topic) => ({ topic, partitions: PARTITIONS })));
  const seqMs = await produceSequential(bus, seqTopic, batches(0, MESSAGES));
  const concMs = await produceConcurrent(bus, concTopic, batches(0, MESSAGES));
  const { joinMs, consumeMs } = await consumeAll(bus, seqTopic, MESSAGES);
  return { produce1: rate(MESSAGES, seqMs), produceN: rate(MESSAGES, concMs), consume: rate(MESSAGES, consumeMs), joinMs: Math.round(joinMs) };
}

async function measure(name: string, bus: Bus): Promise<Row> {
  const warm = `bench-bus-warm-${run}`;
  await bus.ensureTopics([{ topic: warm, partitions: PARTITIONS }]);
  // Warm-up: connections, metadata, JIT.
  await produceSequential(bus, warm, batches(0, 10_000));
  await consumeAll(bus, warm, 10_000);
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    rounds.push(await measureRound(bus, r));
    console.log(name, JSON.stringify(rounds.at(-1)));
  }
  return { bus: name, rounds };
}

/** Best and median of the rounds: the best is the ceiling, the median shows the noise. */
function cell(rounds: Round[], pick: (r: Round) => number, best: (a: number, b: number) => number): string {
  const values = rounds.map(pick).sort((a, b) => a - b);
  const median = values[Math.floor(values.length / 2)]!;
  return `${values.reduce((a, b) => best(a, b)).toLocaleString('en')} (${median.toLocaleString('en')})`;
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg()[0]!.toFixed(1);
  const rows: Row[] = [];
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-bench-bus-'));
  const embedded = await createEmbeddedBus({ dir, log });
  try {
    rows.push(await measure('embedded log (temp dir, fsync per write)', embedded));
  } finally {
    await embedded.close();
    await rm(dir, { recursive: true, force: true });
  }

  const brokers = process.env.WEIR_BENCH_KAFKA_BROKERS ?? process.env.WEIR_TEST_KAFKA_BROKERS;
  if (brokers) {
    const kafka = createKafkaBus({ brokers: brokers.split(','), clientId: 'weir-bench', log });
    try {
      rows.push(await measure('Kafka (kafkajs, idempotent, acks=all)', kafka));
    } finally {
      await kafka.close();
    }
  } else {
    console.log('Kafka skipped: set WEIR_BENCH_KAFKA_BROKERS (infra/scripts/kafka.sh start prints the address)');
  }

  const table = [
    '| bus | produce, 1 caller (msg/s) | produce, 8 callers (msg/s) | consume + commit (msg/s) | new group to first batch (ms) |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.bus} | ${cell(r.rounds, (x) => x.produce1, Math.max)} | ${cell(r.rounds, (x) => x.produceN, Math.max)} | ` +
        `${cell(r.rounds, (x) => x.consume, Math.max)} | ${cell(r.rounds, (x) => x.joinMs, Math.min)} |`,
    ),
  ].join('\n');
  const md = `## Bus: raw produce and consume throughput

Command: \`npx tsx bench/bus.ts\` (Kafka measured when \`WEIR_BENCH_KAFKA_BROKERS\` or \`WEIR_TEST_KAFKA_BROKERS\`
is set; the broker is the single-node KRaft one of \`infra/scripts/kafka.sh\`, on the same machine).
Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${os.cpus().length} cores (nproc), Node ${process.version}, ${Math.round(os.totalmem() / 2 ** 30)} GiB;
1-minute load average ${loadBefore} before and ${os.loadavg()[0]!.toFixed(1)} after the run (other work on the machine lowers every figure).

Workload: ${MESSAGES.toLocaleString('en')} messages of about ${VALUE_BYTES} bytes (JSON counter events, keys over
${ENTITIES.toLocaleString('en')} entities), ${PARTITIONS} partitions, sends of ${BATCH} messages. A send resolves only
once its messages are durable (embedded: written and fsynced; Kafka: acknowledged by all in-sync replicas).
"8 callers" runs 8 concurrent senders; concurrent sends share one write (embedded) or one produce
request (Kafka). Consume counts from the first batch until every offset is committed, with a
handler that does nothing; the last column is the time a new group takes to get its first batch.
Each cell: the best of ${ROUNDS} rounds, then the median in brackets.

${table}

On 2 cores the broker, the benchmark and (for the embedded log) the disk writes share the CPU, so
these are ceilings for this machine, not for a cluster.
`;
  const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'bus.md');
  await writeFile(out, md);
  console.log(`wrote ${out}`);
}

await main();
