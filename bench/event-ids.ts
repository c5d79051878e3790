/**
 * Bytes per remembered event id on Redis: `npx tsx bench/event-ids.ts [ids]` (Redis from
 * WEIR_BENCH_REDIS_URL, default redis://127.0.0.1:6379; default 1,000,000 ids). Measures MEMORY
 * USAGE over every id key of one organization in three cases: cold (no ids before, so generations grow
 * as the ids come), steady (the generation the previous slot's as many ids grew stays), and claimed
 * by a consumer (an apply with its partition and offsets: redis/claim-layout.ts, whose keys hold the
 * ids' whole window in a fixed number of buckets). Prints a markdown table.
 */
import './scratch.js';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { idSlots } from '../infra/windows/event-ids.js';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';

const redisUrl = process.env.WEIR_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const TTL_MS = 86_400_000;
const CALL = 500;

/** Sum of MEMORY USAGE (all samples) over the keys of a prefix, and their count. */
export async function keyBytes(redis: Redis, pattern: string): Promise<{ bytes: number; keys: number }> {
  let bytes = 0;
  let keys = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    cursor = next;
    const p = redis.pipeline();
    for (const k of batch) p.memory('USAGE', k, 'SAMPLES', 0);
    for (const [, n] of (await p.exec()) ?? []) bytes += Number(n);
    keys += batch.length;
  } while (cursor !== '0');
  return { bytes, keys };
}

/**
 * Buckets of the one generation a steady rate of `perSlot` ids a slot leaves (scripts.ts IDS): the
 * fewest, a power of four, at which the window's `slots` slots hold at most 64 ids a bucket (grown
 * sixteen-fold, then shrunk four-fold at a slot's start while under 16 a bucket).
 */
export function steadyBuckets(perSlot: number, slots: number): number {
  let b = 1;
  while (slots * perSlot > 64 * b) b *= 4;
  return b;
}

/** Unlinks every key of a pattern. */
export async function dropKeys(redis: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 10_000);
    cursor = next;
    if (batch.length > 0) await redis.unlink(...batch);
  } while (cursor !== '0');
}

type Case = 'cold' | 'steady' | 'claimed';

const CASES: Record<Case, string> = {
  cold: 'cold (no ids before)',
  steady: 'steady (a generation sized by the previous slot)',
  claimed: 'claimed by a consumer (plain claims, one offset each)',
};

async function measure(ids: number, kind: Case): Promise<string> {
  const prefix = `bench:${randomUUID()}:`;
  const admin = new Redis(redisUrl);
  const store = createRedisWindowStore({ url: redisUrl, keyPrefix: prefix });
  try {
    if (kind === 'steady') {
      // The meta hash as the previous slot's as many ids left it (scripts.ts IDS): one generation grown to fit them.
      const g = idSlots(TTL_MS, Date.now());
      const b = steadyBuckets(ids, g.last - g.first + 1);
      await admin.hset(`${prefix}j:{acme}:${g.slotMs}`, 'top', 1, 'c', g.last - 1, 'n', ids, 'e', g.expireAt, '1', `${b},${g.last - 1},${g.expireAt}`);
    }
    for (let i = 0; i < ids; i += CALL) {
      const call = Array.from({ length: CALL }, (_, k) => ({ entity: { scope: 'acme', id: `u${k % 50}` }, updates: [], once: { id: `${randomUUID()}`, ttlMs: TTL_MS } }));
      await store.apply(call, kind === 'claimed' ? { source: { topic: 'events', partition: 0, offsets: call.map((_, k) => i + k) } } : undefined);
    }
    const { bytes, keys } = await keyBytes(admin, kind === 'claimed' ? `${prefix}k:*` : `${prefix}j:*`);
    return `| ${CASES[kind]} | ${ids.toLocaleString('en-US')} | ${keys.toLocaleString('en-US')} | ${(bytes / ids).toFixed(1)} B |`;
  } finally {
    await store.close();
    await dropKeys(admin, `${prefix}*`);
    await admin.quit();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ids = Number(process.argv[2] ?? 1_000_000);
  console.log('| case | ids | keys | MEMORY USAGE per id |\n| --- | ---: | ---: | ---: |');
  for (const kind of Object.keys(CASES) as Case[]) console.log(await measure(ids, kind));
}
