import type { Redis } from 'ioredis';

/**
 * Queues were `<prefix>{q:<scope>:<queue>}` before the key layout became ready for Redis Cluster
 * (`<prefix>q:{<scope>}:<queue>`, so that a queue and its lease queue share a slot). On one
 * server the queues of the earlier layout (the flusher's dirty entities, the webhooks' durable
 * retries) are moved once, before the store's first queue call, each in one atomic script that
 * keeps the earlier due time of an id found in both. A cluster never held the earlier layout.
 */
const MOVE = `
redis.call('ZUNIONSTORE', KEYS[2], 2, KEYS[2], KEYS[1], 'AGGREGATE', 'MIN')
redis.call('DEL', KEYS[1])
return 1
`;

const globEscape = (s: string): string => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

export async function moveOldQueues(redis: Redis, prefix: string): Promise<number> {
  let moved = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${globEscape(prefix)}{q:*}`, 'COUNT', 1000, 'TYPE', 'zset');
    cursor = next;
    for (const old of keys) {
      // Escaped names hold no ':', '{' or '}' (index.ts esc): the first ':' ends the scope.
      const m = /^\{q:([^:{}]*):([^:{}]*)\}$/.exec(old.slice(prefix.length));
      if (!m) continue;
      await redis.eval(MOVE, 2, old, `${prefix}q:{${m[1]}}:${m[2]}`);
      moved++;
    }
  } while (cursor !== '0');
  return moved;
}
