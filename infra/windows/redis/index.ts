import { Redis, type ChainableCommander, type Result } from 'ioredis';
import type { ApplyRequest, EntityRef, IdState, SeriesRead, SeriesUpdate, WindowStore } from '../types.js';
import { chunkBySize } from '../../chunk.js';
import { DEFAULT_IDLE_TTL_MS, checkApply, checkFinite, checkPositive, checkReads } from '../validate.js';
import { idDigest, idSlots } from '../event-ids.js';
import { APPLY, CLAIM, READ, RESERVE, TAKE_DUE, UNRESERVE } from './scripts.js';
import { outageOptions } from './outage.js';
import { down, up } from '../../health.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    weirWindowApply(numberOfKeys: number, ...keysAndArgs: (string | Buffer)[]): Result<number[], Context>;
    weirWindowReserve(...args: (string | Buffer)[]): Result<number[], Context>;
    weirWindowUnreserve(...args: (string | Buffer)[]): Result<number, Context>;
    weirWindowClaim(numberOfKeys: number, ...keysAndArgs: string[]): Result<number[], Context>;
    weirWindowRead(entityKey: string, ...args: string[]): Result<(string | null)[], Context>;
    weirWindowTakeDue(queueKey: string, leaseKey: string, ...args: string[]): Result<string[], Context>;
  }
}

export interface RedisWindowStoreOptions {
  url: string;
  /** Prepended to every key (default 'w:'); tests use a fresh one per run. */
  keyPrefix?: string;
  /** Every apply re-arms the entity's expiry to this (default 100 days, beyond the longest window). */
  idleTtlMs?: number;
  /** Longest wait for a command's answer before it fails (default 1000; see outage.ts). */
  commandTimeoutMs?: number;
  /** Told of connection errors (the commands they fail reject on their own). */
  onConnectionError?: (err: Error) => void;
}

/**
 * Escapes the characters the key layout uses, so distinct (scope, id) pairs never share a key.
 * Names rarely hold one, and a test is much cheaper than a replace on the hot path.
 */
const SPECIAL = /[%:{}]/;
const esc = (s: string): string => (SPECIAL.test(s) ? s.replace(/[%:{}]/g, (c) => `%${c.charCodeAt(0).toString(16)}`) : s);

/**
 * Key layout, ready for Redis Cluster: all keys of one entity carry the hash tag {scope:id}, so
 * they share one slot (this adapter, on a standalone server, groups entities per script anyway).
 *   <prefix>{<scope>:<id>}               HASH of the entity's series (layout in scripts.ts)
 *   <prefix>i:{<scope>}:<L>:<slot>       meta HASH of a time slot of the scope's event ids (b, n)
 *   <prefix>i:{<scope>}:<L>:<slot>:<b>   HASH: 8-byte digest of an event id -> 0 reserved, 1 applied
 *   <prefix>{q:<scope>:<queue>}          ZSET of entity ids scored by due time
 *   <prefix>c:<scope>:<namespace>:<id>   intake claim; each its own slot, so claims spread
 */
function keys(prefix: string) {
  const entity = (e: EntityRef): string => `${prefix}{${esc(e.scope)}:${esc(e.id)}}`;
  return {
    entity,
    /** Base of the meta keys of a scope's id slots on a grid of `slotMs` (see event-ids.ts). */
    ids: (scope: string, slotMs: number): string => `${prefix}i:{${esc(scope)}}:${slotMs}:`,
    queue: (scope: string, queue: string): string => `${prefix}{q:${esc(scope)}:${esc(queue)}}`,
    claim: (scope: string, ns: string, id: string): string => `${prefix}c:${esc(scope)}:${esc(ns)}:${esc(id)}`,
  };
}

/**
 * Work per apply script and ids per claim script. One script serves many entities: the hot path
 * pays one script call and one command per chunk, not per event. A script blocks the server while
 * it runs, so a chunk is kept to about a millisecond: an apply request weighs its updates plus two
 * (once claim, expiry), e.g. 100 requests of three updates.
 */
const APPLY_WEIGHT = 500;
const CLAIM_CHUNK = 500;
const weightOf = (r: ApplyRequest): number => (r.once ? 4 : 1) + r.updates.length;

const ID_STATES: IdState[] = ['new', 'reserved', 'applied'];

/** Two arguments per update, numbers packed (see APPLY): ioredis's cost grows with the argument count. */
function pushUpdate(args: (string | Buffer)[], u: SeriesUpdate): void {
  if (u.kind === 'sum') args.push(esc(u.series), `s,${u.bucket},${u.delta},${u.floor}`);
  else args.push(esc(u.series), `m,${u.value}`);
}

const readArgs = (r: SeriesRead): string[] => (r.kind === 'sum' ? ['s', esc(r.series), String(r.floor)] : ['m', esc(r.series), '']);

/** Runs a pipeline and answers its replies, throwing the first command error. */
async function run(p: ChainableCommander): Promise<unknown[]> {
  const replies = (await p.exec()) ?? [];
  return replies.map(([err, reply]) => {
    if (err) throw err;
    return reply;
  });
}

/**
 * The Redis window store, on one standalone server. Each command is as durable as the server's
 * persistence settings make it; there is nothing to flush at close.
 * Apply and claim scripts touch keys of many entities at once, which a standalone server allows.
 * Not yet ready for Redis Cluster: an apply with an event id touches the entity's hash (tag
 * {scope:id}) and the organization's id keys (tag {scope}) in one atomic script, so a cluster
 * variant must first co-locate them (e.g. entity keys tagged by organization and shard).
 */
export function createRedisWindowStore(opts: RedisWindowStoreOptions): WindowStore {
  const idleTtl = String(opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS);
  checkPositive('idleTtlMs', Number(idleTtl));
  const key = keys(opts.keyPrefix ?? 'w:');
  /** `base first last expireAt` of the id slots a call at `now` with this window searches (scripts.ts IDS). */
  const gridArgsOf = (scope: string, ttlMs: number, now: number): string[] => {
    const g = idSlots(ttlMs, now);
    return [key.ids(scope, g.slotMs), String(g.first), String(g.last), String(g.expireAt)];
  };
  const redis = new Redis(opts.url, { enableAutoPipelining: true, ...outageOptions(opts.commandTimeoutMs ?? 1000) });
  redis.on('error', (err: Error) => opts.onConnectionError?.(err));
  let closed = false;
  redis.defineCommand('weirWindowApply', { lua: APPLY });
  redis.defineCommand('weirWindowClaim', { lua: CLAIM });
  redis.defineCommand('weirWindowReserve', { numberOfKeys: 0, lua: RESERVE });
  redis.defineCommand('weirWindowUnreserve', { numberOfKeys: 0, lua: UNRESERVE });
  redis.defineCommand('weirWindowRead', { numberOfKeys: 1, lua: READ });
  redis.defineCommand('weirWindowTakeDue', { numberOfKeys: 2, lua: TAKE_DUE });

  return {
    kind: 'redis',
    async apply(requests) {
      checkApply(requests);
      const now = Date.now();
      const p = redis.pipeline();
      for (const chunk of chunkBySize(requests, weightOf, APPLY_WEIGHT)) {
        const keyList: string[] = [];
        const grids = new Map<string, number>();
        const gridArgs: string[] = [];
        const args: (string | Buffer)[] = [];
        for (const r of chunk) {
          keyList.push(key.entity(r.entity));
          if (r.once) {
            const g = gridArgsOf(r.entity.scope, r.once.ttlMs, now);
            let index = grids.get(g.join(' '));
            if (index === undefined) {
              grids.set(g.join(' '), (index = grids.size + 1));
              gridArgs.push(...g);
            }
            args.push(`${index},${r.updates.length}`, idDigest(r.once.id));
          } else {
            args.push(`,${r.updates.length}`);
          }
          for (const u of r.updates) pushUpdate(args, u);
        }
        p.weirWindowApply(keyList.length, ...keyList, idleTtl, String(grids.size), ...gridArgs, ...args);
      }
      return (await run(p)).flatMap((applied) => (applied as number[]).map((a) => a === 1));
    },
    async reserveIds(scope, ids, ttlMs) {
      checkPositive('reserveIds ttlMs', ttlMs);
      const grid = gridArgsOf(scope, ttlMs, Date.now());
      const p = redis.pipeline();
      for (const chunk of chunkBySize(ids, () => 1, CLAIM_CHUNK)) p.weirWindowReserve(...grid, ...chunk.map(idDigest));
      return (await run(p)).flatMap((states) => (states as number[]).map((s) => ID_STATES[s]!));
    },
    async unreserveIds(scope, ids, ttlMs) {
      checkPositive('unreserveIds ttlMs', ttlMs);
      const grid = gridArgsOf(scope, ttlMs, Date.now()).slice(0, 3);
      const p = redis.pipeline();
      for (const chunk of chunkBySize(ids, () => 1, CLAIM_CHUNK)) p.weirWindowUnreserve(...grid, ...chunk.map(idDigest));
      await run(p);
    },
    async read(entity, reads) {
      checkReads(reads);
      if (reads.length === 0) return [];
      const values = await redis.weirWindowRead(key.entity(entity), ...reads.flatMap(readArgs));
      return values.map((v) => (v === null ? null : Number(v)));
    },
    async claim(scope, namespace, ids, ttlMs) {
      checkPositive('claim ttlMs', ttlMs);
      const p = redis.pipeline();
      for (const chunk of chunkBySize(ids, () => 1, CLAIM_CHUNK)) p.weirWindowClaim(chunk.length, ...chunk.map((id) => key.claim(scope, namespace, id)), String(ttlMs));
      return (await run(p)).flatMap((claimed) => (claimed as number[]).map((c) => c === 1));
    },
    async release(scope, namespace, ids) {
      const p = redis.pipeline();
      for (const id of ids) p.unlink(key.claim(scope, namespace, id));
      await run(p);
    },
    async schedule(scope, queue, entries) {
      if (entries.length === 0) return;
      const args: (string | number)[] = ['LT'];
      for (const e of entries) {
        checkFinite('schedule dueAt', e.dueAt);
        args.push(e.dueAt, e.id);
      }
      // LT keeps the earlier due time of an entity already queued; new entities are added.
      await redis.zadd(key.queue(scope, queue), ...args);
    },
    async takeDue(scope, queue, now, limit, lease) {
      checkPositive('takeDue limit', limit);
      if (!lease) return redis.weirWindowTakeDue(key.queue(scope, queue), key.queue(scope, queue), String(now), String(limit));
      checkFinite('lease dueAt', lease.dueAt);
      return redis.weirWindowTakeDue(key.queue(scope, queue), key.queue(scope, lease.queue), String(now), String(limit), String(lease.dueAt), lease.prefix);
    },
    async unschedule(scope, queue, ids) {
      if (ids.length === 0) return;
      for (const chunk of chunkBySize(ids, () => 1, CLAIM_CHUNK)) await redis.zrem(key.queue(scope, queue), ...chunk);
    },
    async deleteEntity(entity) {
      // Event ids stay until their TTL: they guard against redelivery, and hold no entity data.
      await redis.unlink(key.entity(entity));
    },
    health() {
      if (closed) return down('closed');
      return redis.status === 'ready' ? up : down(`not connected to Redis (${redis.status})`);
    },
    async close() {
      closed = true;
      // Unreachable, there is nothing to say goodbye to: drop the connection and stop reconnecting.
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
