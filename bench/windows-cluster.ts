/**
 * The Redis window store on one server against a Redis Cluster:
 *   WEIR_BENCH_REDIS_CLUSTER_URL=$(infra/scripts/redis-cluster.sh start) npx tsx bench/windows-cluster.ts
 * (one server from WEIR_BENCH_REDIS_URL, default redis://127.0.0.1:6379). An apply with event ids
 * takes one script per call on one server and four steps on a cluster (cluster-apply.ts); this
 * measures what that costs, the apply without ids and batch claims, and the bytes a remembered id
 * takes on the cluster. Each server's persistence setting is printed beside its figures: compare
 * like with like (`redis-cli -p <port> config set appendonly no` on each master, or the reverse).
 * Writes bench/results/windows-cluster.md.
 */
import './scratch.js';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Cluster, Redis } from 'ioredis';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import { parseRedisUrl } from '../infra/windows/redis/url.js';
import type { ApplyRequest, WindowStore } from '../infra/windows/types.js';
import { keyBytes } from './event-ids.js';
import { opsPerSecond } from './ops-per-second.js';

const serverUrl = process.env.WEIR_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const clusterUrl = process.env.WEIR_BENCH_REDIS_CLUSTER_URL;
if (!clusterUrl) throw new Error('set WEIR_BENCH_REDIS_CLUSTER_URL (infra/scripts/redis-cluster.sh start prints it)');
const ENTITIES = 10_000;
const CALL = 500;
const TOTAL = 50_000;
const IDS = 100_000;

/** `total` operations in calls of `perCall`, two calls in flight; the best of three runs, in operations per second. */
async function best(total: number, perCall: number, call: (first: number, rep: number) => Promise<unknown>): Promise<number> {
  let top = 0;
  for (let rep = 0; rep < 3; rep++) top = Math.max(top, await opsPerSecond(total, perCall, 2, (first) => call(first, rep)));
  return top;
}

const request = (i: number, once: string | undefined): ApplyRequest => ({
  entity: { scope: 'bench-org', id: `user-${i % ENTITIES}` },
  updates: [{ kind: 'sum', series: 'logins_24h', bucket: 1000, delta: 1, floor: 977 }],
  ...(once ? { once: { id: once, ttlMs: 3_600_000 } } : {}),
});

async function measure(store: WindowStore): Promise<number[]> {
  const run = randomUUID();
  const batch = (first: number, once?: (i: number) => string) => Array.from({ length: CALL }, (_, k) => request(first + k, once?.(first + k)));
  await store.apply(batch(0, (i) => `${run}-warm-${i}`));
  return [
    await best(TOTAL, CALL, (first, rep) => store.apply(batch(first, (i) => `${run}-${rep}-${i}`))),
    await best(TOTAL, CALL, (first) => store.apply(batch(first))),
    await best(TOTAL, CALL, (first, rep) => store.claim('bench-org', 'intake', Array.from({ length: CALL }, (_, k) => `${run}-c${rep}-${first + k}`), 3_600_000)),
  ];
}

/** Bytes of the keys under a prefix, over every master of a cluster or the one server. */
async function bytesUnder(nodes: Redis[], pattern: string): Promise<number> {
  let bytes = 0;
  for (const n of nodes) bytes += (await keyBytes(n, pattern)).bytes;
  return bytes;
}

async function persistence(nodes: Redis[]): Promise<string> {
  const settings = await Promise.all(nodes.map(async (n) => {
    const [, aof] = (await n.config('GET', 'appendonly')) as string[];
    const [, fsync] = (await n.config('GET', 'appendfsync')) as string[];
    return aof === 'yes' ? `AOF, appendfsync ${fsync}` : 'no AOF';
  }));
  return [...new Set(settings)].join(' / ');
}

async function main(): Promise<void> {
  const loadStart = loadavg()[0]!.toFixed(1);
  const server = new Redis(serverUrl);
  const cluster = new Cluster(parseRedisUrl(clusterUrl!).nodes);
  await cluster.ping();
  const targets = [
    { label: 'one server', url: serverUrl, nodes: [server] },
    { label: 'Redis Cluster, 3 masters', url: clusterUrl!, nodes: cluster.nodes('master') },
  ];
  const rows: string[] = [];
  for (const t of targets) {
    const prefix = `bench:${randomUUID()}:`;
    const store = createRedisWindowStore({ url: t.url, keyPrefix: prefix });
    try {
      const [once, plain, claim] = await measure(store);
      const idPrefix = `bench:${randomUUID()}:`;
      const ids = createRedisWindowStore({ url: t.url, keyPrefix: idPrefix });
      for (let i = 0; i < IDS; i += CALL) await ids.apply(Array.from({ length: CALL }, (_, k) => ({ entity: { scope: 'bench-org', id: `user-${k}` }, updates: [], once: { id: `event-${i + k}`, ttlMs: 3_600_000 } })));
      await ids.close();
      const perId = (await bytesUnder(t.nodes, `${idPrefix}i:*`)) / IDS;
      const left = await bytesUnder(t.nodes, `${idPrefix}o:*`);
      const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
      rows.push(`| ${t.label} (${await persistence(t.nodes)}) | ${fmt(once!)} | ${fmt(plain!)} | ${fmt(claim!)} | ${perId.toFixed(1)} B | ${left} B |`);
      for (const p of [prefix, idPrefix]) for (const n of t.nodes) for (const k of await n.keys(`${p}*`)) await n.unlink(k);
    } finally {
      await store.close();
    }
  }
  await server.quit();
  await cluster.quit();
  const report = [
    '# Window store: one Redis server against a Redis Cluster',
    '',
    'Command: `WEIR_BENCH_REDIS_CLUSTER_URL=$(infra/scripts/redis-cluster.sh start) npx tsx bench/windows-cluster.ts`  ',
    `Date: ${new Date().toISOString()}  `,
    `Machine: nproc ${availableParallelism()}, Node ${process.version}; every server on this machine; load average ${loadStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end`,
    '',
    `Operations per second (an apply operation is one request of one update, a claim one id), calls of ${CALL}, two in flight, ${TOTAL.toLocaleString('en-US')} per figure, best of three; ${ENTITIES.toLocaleString('en-US')} entities.`,
    `Bytes per id: MEMORY USAGE of the id keys after ${IDS.toLocaleString('en-US')} applied ids, over every master; markers left: bytes of the in-flight markers after the applies (0 when every step finished).`,
    '',
    '| Redis | apply with event ids (ops/s) | apply without ids (ops/s) | claim, 500 ids/call (ids/s) | bytes per remembered id | markers left |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    'All servers and the benchmark share the machine. On a cluster an apply is grouped per hash slot, and',
    `${ENTITIES.toLocaleString('en-US')} entities fall in about as many slots: a call of ${CALL} requests becomes about ${CALL} entity scripts plus the id`,
    'steps, where one server runs one script; claims (each key its own slot) likewise. Each master added to a',
    'cluster takes its share of the slots, and of this work.',
    '',
  ].join('\n');
  await writeFile(fileURLToPath(new URL('./results/windows-cluster.md', import.meta.url)), report);
  console.log(report);
}

await main();
