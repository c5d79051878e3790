import type { Redis, Result } from 'ioredis';
import type { ApplyRequest, EntityReads, EntityRef, Hold, IdState, SeriesRead, SeriesUpdate, WindowStore } from '../types.js';
import { chunkBySize } from '../../chunk.js';
import { DEFAULT_IDLE_TTL_MS, checkApply, checkFinite, checkPositive, checkReads } from '../validate.js';
import { ID_DIGEST_BYTES, idDigest, idSlots, writeIdDigest } from '../event-ids.js';
import { APPLY, APPLY_ENTITY, CLAIM, DROP_HOLD, HOLD, ONCE_BEGIN, ONCE_COMMIT, READ, RESERVE, TAKE_DUE, UNRESERVE } from './scripts.js';
import { connectRedis, eachInOrder, groupBySlot, type RedisClient } from './client.js';
import { parseRedisUrl, type RedisAddress } from './url.js';
import { createClusterApply, type IdGrid } from './cluster-apply.js';
import { createPlainApply } from './plain-claims.js';
import { claimLimit, claimSlots } from './claim-layout.js';
import { framedScript, RespWriter } from './resp-frame.js';
import { moveOldQueues } from './old-queues.js';
import { down, up } from '../../health.js';
import { createInFlightLimit, type InFlightLimit } from '../../in-flight-limit.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    weirWindowReserve(route: string, ...args: (string | Buffer)[]): Result<number[], Context>;
    weirWindowUnreserve(route: string, ...args: (string | Buffer)[]): Result<number, Context>;
    weirWindowOnceBegin(route: string, ...args: (string | Buffer)[]): Result<number[], Context>;
    weirWindowApplyEntity(numberOfKeys: number, ...keysAndArgs: (string | Buffer)[]): Result<number[], Context>;
    weirWindowOnceCommit(route: string, ...args: (string | Buffer)[]): Result<number, Context>;
    weirWindowClaim(numberOfKeys: number, ...keysAndArgs: string[]): Result<number[], Context>;
    weirWindowRead(numberOfKeys: number, ...keysAndArgs: string[]): Result<(string | null)[], Context>;
    weirWindowReadOne(entityKey: string, ...args: string[]): Result<(string | null)[], Context>;
    weirWindowTakeDue(queueKey: string, leaseKey: string, ...args: string[]): Result<string[], Context>;
    weirWindowHold(holdKey: string, holder: string, token: string, ttlMs: string): Result<[number, string, string, string], Context>;
    weirWindowDropHold(holdKey: string, holder: string): Result<number, Context>;
  }
}

/** The key prefix of a deployment's namespace (REDIS_KEY_PREFIX) on a shared Redis; no namespace keeps the default 'w:'. */
export const redisKeyPrefix = (namespace: string): string => `${namespace}:w:`;

export interface RedisWindowStoreOptions {
  /** redis://host:port, or redis+cluster://host:port,host:port for a Redis Cluster (client.ts). */
  url: string;
  /** A Redis Cluster even with a redis:// URL (one seed node; REDIS_CLUSTER=true). */
  cluster?: boolean;
  /** An existing connection instead of one to `url` (tests wrap it to stop a call midway). */
  client?: RedisClient;
  /** Prepended to every key (default 'w:', or redisKeyPrefix(REDIS_KEY_PREFIX)); tests use a fresh one per run. */
  keyPrefix?: string;
  /** Every apply re-arms the entity's expiry to this (default 100 days, beyond the longest window). */
  idleTtlMs?: number;
  /** Longest wait for a command's answer before it fails (default 1000; see outage.ts). */
  commandTimeoutMs?: number;
  /** Told of connection errors (the commands they fail reject on their own). */
  onConnectionError?: (err: Error) => void;
  /**
   * The namespace of the log whose partitions a consumer's apply names (KAFKA_NAMESPACE): pipelines
   * see logical topic names, and a partition's applied-through mark (plain-claims.ts) must be that of
   * the topic itself, or deployments and test runs that share a Redis but not their topics would
   * share marks.
   */
  logNamespace?: string;
  /** The limit on apply and reserve work in flight (default one of APPLY_IN_FLIGHT); a bench passes one to watch it. */
  applyLimit?: InFlightLimit;
}

/**
 * Escapes the characters the key layout uses, so distinct (scope, id) pairs never share a key.
 * Names rarely hold one, and a test is much cheaper than a replace on the hot path.
 */
const SPECIAL = /[%:{}]/;
const esc = (s: string): string => (SPECIAL.test(s) ? s.replace(/[%:{}]/g, (c) => `%${c.charCodeAt(0).toString(16)}`) : s);

/**
 * Series names escaped, remembered: every counter's series holds a ':' (`<name>:<hash>`,
 * domain/counters/compile.ts), so each update would pay a replace. The names come from the
 * organizations' configurations, a few each; the bound only guards against a flood of them.
 */
const SERIES_NAMES = 10_000;
const escapedSeries = new Map<string, string>();
function seriesName(series: string): string {
  let name = escapedSeries.get(series);
  if (name === undefined) {
    if (escapedSeries.size >= SERIES_NAMES) escapedSeries.clear();
    escapedSeries.set(series, (name = esc(series)));
  }
  return name;
}

/**
 * Key layout, for one server and Redis Cluster alike: the keys of one entity carry the hash tag
 * {scope:id}, those of an organization's ids and queues the tag {scope}; every script call touches
 * one tag only on a cluster (cluster-apply.ts), and a queue shares its lease queue's slot.
 *   <prefix>{<scope>:<id>}               HASH of the entity's series (layout in scripts.ts)
 *   <prefix>o:{<scope>:<id>}             HASH: digests of event ids in flight on a cluster (cluster-apply.ts)
 *   <prefix>j:{<scope>}:<L>              meta HASH of the scope's event ids on a grid of slot length L (generations)
 *   <prefix>j:{<scope>}:<L>:<g>:<b>      HASH: 8-byte digest of an event id -> <slot>,<0 reserved | 1 applied>
 *   <prefix>i:{<scope>}:<L>:<slot>[:<g>:<b>]  the earlier layout of ids, per time slot: searched until it expires
 *   <prefix>k:{<scope>}:<W>:<slot>:<b>   HASH: a consumer's claims of ids, one server only (claim-layout.ts)
 *   <prefix>k:{<scope>}:<W>:since        STRING: until when the scope's ids may be in the j: layout (plain-claims.ts)
 *   <prefix>p:<topic>:<partition>        STRING: a log partition's applied-through offset (plain-claims.ts)
 *   <prefix>q:{<scope>}:<queue>          ZSET of entity ids scored by due time
 *   <prefix>v:{<scope>}:<ns>:<id>        STRING: an opaque value (putValues); one slot per scope, so MGET serves a scope
 *   <prefix>c:<scope>:<namespace>:<id>   intake claim; each its own slot, so claims spread
 *   <prefix>h:<scope>:<namespace>:<id>   HASH of a hold (HOLD in scripts.ts), expiring with it
 */
function keys(prefix: string) {
  const tag = (e: EntityRef): string => `{${esc(e.scope)}:${esc(e.id)}}`;
  return {
    entity: (e: EntityRef): string => prefix + tag(e),
    /** An entity key up to its escaped id: the apply writes the key in parts (head, esc(id), '}'). */
    entityHead: (scope: string): string => `${prefix}{${esc(scope)}:`,
    marker: (e: EntityRef): string => `${prefix}o:${tag(e)}`,
    /** The meta key of a scope's ids on a grid of `slotMs` (see event-ids.ts and scripts.ts IDS). */
    ids: (scope: string, slotMs: number): string => `${prefix}j:{${esc(scope)}}:${slotMs}`,
    /** Base of the earlier layout's per-slot meta keys, still searched until they expire. */
    legacyIds: (scope: string, slotMs: number): string => `${prefix}i:{${esc(scope)}}:${slotMs}:`,
    /** The base of a scope's claim keys for a window: slot and bucket follow (claim-layout.ts). */
    claims: (scope: string, windowMs: number): string => `${prefix}k:{${esc(scope)}}:${windowMs}:`,
    /** A log partition's applied-through mark; `topic` as the log names it (its namespace included). */
    mark: (topic: string, partition: number): string => `${prefix}p:${esc(topic)}:${partition}`,
    queue: (scope: string, queue: string): string => `${prefix}q:{${esc(scope)}}:${esc(queue)}`,
    claim: (scope: string, ns: string, id: string): string => `${prefix}c:${esc(scope)}:${esc(ns)}:${esc(id)}`,
    value: (scope: string, ns: string, id: string): string => `${prefix}v:{${esc(scope)}}:${esc(ns)}:${esc(id)}`,
    hold: (scope: string, ns: string, id: string): string => `${prefix}h:${esc(scope)}:${esc(ns)}:${esc(id)}`,
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
/** Bytes of values per MSET, so one command does not hold the server long. */
const VALUE_CHUNK_BYTES = 4 * 1024 * 1024;
/**
 * Ids per reserve script: a new id costs a lookup in every slot of its window (about 16 µs of
 * Redis under load), so a script of 500 held the server 8 ms (SLOWLOG); 100 keep it near 2 ms.
 */
const ID_CHUNK = 100;
/** Due ids per take script: 5,000 held the server 10 ms under load (SLOWLOG), 1,000 about 2. */
const TAKE_CHUNK = 1_000;
/** Reads per read script; an entity weighs its reads plus one. */
const READ_WEIGHT = 500;
const weightOf = (r: ApplyRequest): number => (r.once ? 4 : 1) + r.updates.length;
/**
 * Apply and reserve work in flight per store, across its callers (every partition of a consumer,
 * every intake request): four apply chunks, a few milliseconds of server time; an id weighs 4 as in
 * weightOf. The command timeout then measures the server, not the queue a backlog would build ahead
 * of a command if each caller sent all its chunks at once (in-flight-limit.ts).
 */
export const APPLY_IN_FLIGHT = 4 * APPLY_WEIGHT;

/** Scripts defined without numberOfKeys (client.ts connectRedis). */
const KEYS_COUNTED_AT_CALL = ['weirWindowClaim', 'weirWindowApplyEntity', 'weirWindowRead'];

/**
 * The store's connection. On one server its apply and reserve scripts, about a millisecond of
 * server work each (APPLY_WEIGHT, ID_CHUNK), go out as soon as called, not in the next
 * auto-pipeline: the in-flight limit, not the pipeline, bounds what the server has queued, and
 * Redis works on one chunk while the client plans the next (1.62x the events a second of a
 * counter drain: bench/results/counters-overlap.md). The apply goes out through `sendCommand`
 * (resp-frame.ts), which ioredis never pipelines.
 */
export const connectWindowRedis = (address: RedisAddress, commandTimeoutMs: number): RedisClient =>
  connectRedis(address, commandTimeoutMs, KEYS_COUNTED_AT_CALL, ['weirWindowReserve']);

const ID_STATES: IdState[] = ['new', 'reserved', 'applied'];

/** An update's numbers packed in one argument (see APPLY): the cost of a call grows with its argument count. */
const packed = (u: SeriesUpdate): string => (u.kind === 'sum' ? `s,${u.bucket},${u.delta},${u.floor}` : `m,${u.value}`);

/** packed(u) written in place, for the one-server apply: no string built for an update's numbers. */
function writePacked(w: RespWriter, u: SeriesUpdate): void {
  w.begin(16);
  if (u.kind === 'sum') {
    w.text('s,');
    w.number(u.bucket);
    w.text(',');
    w.number(u.delta);
    w.text(',');
    w.number(u.floor);
  } else {
    w.text('m,');
    w.number(u.value);
  }
  w.end();
}

/** An entity's key written in parts, no string built for it: its scope's key head (keys().entityHead), its escaped id, '}'. */
function writeEntityKey(w: RespWriter, head: string, entityId: string): void {
  const id = esc(entityId);
  w.begin(head.length + id.length + 1);
  w.text(head);
  w.text(id);
  w.text('}');
  w.end();
}

/** Each update's two arguments written in place: the series, then its numbers. */
function writeUpdates(w: RespWriter, r: ApplyRequest): void {
  for (const u of r.updates) {
    w.string(seriesName(u.series));
    writePacked(w, u);
  }
}

/** Two arguments per update: the series, then its numbers. */
function pushUpdates(args: (string | Buffer)[], r: ApplyRequest): void {
  for (const u of r.updates) args.push(seriesName(u.series), packed(u));
}

const toNumber = (v: string | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));

/** One entity's part of a read script's arguments (see READ): its number of reads, then three per read. */
const readArgs = (reads: SeriesRead[]): string[] => {
  const args = [String(reads.length)];
  for (const r of reads) {
    if (r.kind === 'max') args.push('m', seriesName(r.series), '');
    else args.push(r.kind === 'sum' ? 's' : 'o', seriesName(r.series), String(r.floor));
  }
  return args;
};

/**
 * The Redis window store, on one server or a Redis Cluster. Each command is as durable as the
 * servers' persistence settings make it; there is nothing to flush at close.
 * On one server an apply script serves many entities and their ids at once. On a cluster each
 * script call stays in one hash slot: claims are grouped by slot, and an apply runs in steps
 * (cluster-apply.ts). In a cluster the scripts carry `#!lua` (Redis 7 flags, none set), so Redis
 * refuses any key outside the slot of their keys, even one on the same node. Calls go out
 * together through ioredis's auto-pipelining (per node on a cluster).
 */
export function createRedisWindowStore(opts: RedisWindowStoreOptions): WindowStore {
  const idleTtl = String(opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS);
  checkPositive('idleTtlMs', Number(idleTtl));
  const prefix = opts.keyPrefix ?? 'w:';
  const key = keys(prefix);
  const address = parseRedisUrl(opts.url, opts.cluster);
  const cluster = address.cluster;
  /**
   * The id grid of a scope and window at `now` (scripts.ts IDS). One object per scope and window
   * while its slots hold, so the requests of a call share it and it is built once, not per event;
   * one entry per organization and id window.
   */
  const grids = new Map<string, Map<number, IdGrid>>();
  const gridOf = (scope: string, ttlMs: number, now: number): IdGrid => {
    const g = idSlots(ttlMs, now);
    let byTtl = grids.get(scope);
    if (!byTtl) grids.set(scope, (byTtl = new Map()));
    const held = byTtl.get(ttlMs);
    if (held && held.first === g.first && held.last === g.last) return held;
    const base = key.ids(scope, g.slotMs);
    const args = [base, key.legacyIds(scope, g.slotMs), String(g.slotMs), String(g.first), String(g.last), String(g.expireAt)];
    const grid = { first: g.first, last: g.last, expireAt: g.expireAt, args, route: base };
    byTtl.set(ttlMs, grid);
    return grid;
  };
  const redis = opts.client ?? connectWindowRedis(address, opts.commandTimeoutMs ?? 1000);
  redis.on('error', (err: Error) => opts.onConnectionError?.(err));
  let closed = false;
  const script = (lua: string): string => (cluster ? `#!lua\n${lua}` : lua);
  // One server only: a cluster applies in steps (cluster-apply.ts).
  const applyScript = framedScript(APPLY);
  redis.defineCommand('weirWindowClaim', { lua: script(CLAIM) });
  redis.defineCommand('weirWindowReserve', { numberOfKeys: 1, lua: script(RESERVE) });
  redis.defineCommand('weirWindowUnreserve', { numberOfKeys: 1, lua: script(UNRESERVE) });
  redis.defineCommand('weirWindowRead', { lua: script(READ) });
  // The same script with its key count fixed: a cluster client auto-pipelines it (per node), which
  // it cannot do for a count given at call time; most reads name one entity.
  redis.defineCommand('weirWindowReadOne', { numberOfKeys: 1, lua: script(READ) });
  redis.defineCommand('weirWindowTakeDue', { numberOfKeys: 2, lua: script(TAKE_DUE) });
  redis.defineCommand('weirWindowOnceBegin', { numberOfKeys: 1, lua: script(ONCE_BEGIN) });
  redis.defineCommand('weirWindowApplyEntity', { lua: script(APPLY_ENTITY) });
  redis.defineCommand('weirWindowOnceCommit', { numberOfKeys: 1, lua: script(ONCE_COMMIT) });
  redis.defineCommand('weirWindowHold', { numberOfKeys: 1, lua: script(HOLD) });
  redis.defineCommand('weirWindowDropHold', { numberOfKeys: 1, lua: script(DROP_HOLD) });
  /** Resolves once queues of the earlier layout are moved (old-queues.ts); tried again after a failure. */
  let queuesMoved: Promise<unknown> | undefined;
  const queuesReady = (): Promise<unknown> =>
    cluster ? Promise.resolve() : (queuesMoved ??= moveOldQueues(redis as Redis, prefix).catch((err: unknown) => {
      queuesMoved = undefined;
      throw err;
    }));
  const applyLimit = opts.applyLimit ?? createInFlightLimit(APPLY_IN_FLIGHT);
  // Reused by every apply chunk, in the order of the script's arguments: its frame is copied out
  // before the next one is built.
  const numKeys = new RespWriter(16);
  const keyArgs = new RespWriter();
  const gridArgs = new RespWriter(1024);
  const requestArgs = new RespWriter();
  const clusterApply = createClusterApply({
    redis,
    limit: applyLimit,
    idleTtl,
    entityKey: key.entity,
    markerKey: key.marker,
    grid: gridOf,
    pushUpdates,
    applyWeight: APPLY_WEIGHT,
    idChunk: ID_CHUNK,
  });
  const plainApply = cluster
    ? undefined
    : createPlainApply({
        redis: redis as Redis,
        limit: applyLimit,
        idleTtl,
        claimsKey: key.claims,
        markKey: (topic, partition) => key.mark(opts.logNamespace ? `${opts.logNamespace}.${topic}` : topic, partition),
        grid: gridOf,
        entityHead: key.entityHead,
        writeEntityKey,
        writeUpdates,
        weightOf,
        applyWeight: APPLY_WEIGHT,
        idChunk: ID_CHUNK,
      });

  /** Many entities a script (one hash slot a script on a cluster), the scripts of a call at once. */
  async function readMany(items: EntityReads[]): Promise<(number | null)[][]> {
    for (const i of items) checkReads(i.reads);
    const answers: (number | null)[][] = items.map(() => []);
    const keyed = items.map((item, i) => ({ i, reads: item.reads, key: key.entity(item.entity) })).filter((k) => k.reads.length > 0);
    const chunks = groupBySlot(cluster, keyed, (k) => k.key).flatMap((group) => chunkBySize(group, (k) => 1 + k.reads.length, READ_WEIGHT));
    await Promise.all(
      chunks.map(async (chunk) => {
        const args = chunk.flatMap((k) => readArgs(k.reads));
        const values = await (chunk.length === 1 ? redis.weirWindowReadOne(chunk[0]!.key, ...args) : redis.weirWindowRead(chunk.length, ...chunk.map((k) => k.key), ...args));
        let v = 0;
        for (const k of chunk) answers[k.i] = k.reads.map(() => toNumber(values[v++]));
      }),
    );
    return answers;
  }

  return {
    kind: 'redis',
    async apply(requests, options) {
      checkApply(requests);
      if (cluster) return clusterApply(requests);
      if (options?.source && plainApply) return plainApply(requests, options.source);
      const now = Date.now();
      const calls: Promise<number[]>[] = [];
      for (const chunk of chunkBySize(requests, weightOf, APPLY_WEIGHT)) {
        // The script's arguments (APPLY): its keys, then idle TTL, grids and each request's part.
        keyArgs.reset();
        requestArgs.reset();
        const gridIndex = new Map<IdGrid, number>();
        // A call's requests mostly share one organization and id window: the key head of the last
        // request's scope and the grid of the last request with an id serve the next ones.
        let scope: string | undefined;
        let head = '';
        let last: { scope: string; ttlMs: number; index: number } | undefined;
        let weight = 0;
        for (const r of chunk) {
          weight += weightOf(r);
          if (r.entity.scope !== scope) head = key.entityHead((scope = r.entity.scope));
          writeEntityKey(keyArgs, head, r.entity.id);
          requestArgs.begin(4);
          if (r.once) {
            if (last?.scope !== scope || last.ttlMs !== r.once.ttlMs) {
              const grid = gridOf(scope, r.once.ttlMs, now);
              let index = gridIndex.get(grid);
              if (index === undefined) gridIndex.set(grid, (index = gridIndex.size + 1));
              last = { scope, ttlMs: r.once.ttlMs, index };
            }
            requestArgs.number(last.index);
          }
          requestArgs.text(',');
          requestArgs.number(r.updates.length);
          requestArgs.end();
          if (r.once) requestArgs.computed(ID_DIGEST_BYTES, writeIdDigest, r.once.id);
          writeUpdates(requestArgs, r);
        }
        numKeys.reset();
        numKeys.string(String(keyArgs.count));
        gridArgs.reset();
        gridArgs.string(idleTtl);
        gridArgs.string(String(gridIndex.size));
        for (const grid of gridIndex.keys()) for (const a of grid.args) gridArgs.string(a);
        const frame = applyScript.frame(numKeys, keyArgs, gridArgs, requestArgs);
        calls.push(applyLimit.run(weight, () => applyScript.call(redis as Redis, frame) as Promise<number[]>));
      }
      return (await Promise.all(calls)).flatMap((applied) => applied.map((a) => a === 1));
    },
    async reserveIds(scope, ids, ttlMs) {
      checkPositive('reserveIds ttlMs', ttlMs);
      const now = Date.now();
      const grid = gridOf(scope, ttlMs, now);
      // A consumer's claims answer `applied` too (one server only: a cluster has none).
      const newest = claimSlots(ttlMs, now).newest;
      const claims = cluster ? ['', '0', '0'] : [key.claims(scope, ttlMs), String(newest), String(claimLimit(ttlMs, newest, now))];
      const states: IdState[][] = [];
      // In order: an id repeated in a later chunk must find the earlier one reserved.
      let n = 0;
      await eachInOrder(cluster, [ids], () => 1, ID_CHUNK, async (chunk) => {
        const at = n++;
        states[at] = (await applyLimit.run(4 * chunk.length, () => redis.weirWindowReserve(grid.route, ...grid.args, ...claims, ...chunk.map(idDigest)))).map((s) => ID_STATES[s]!);
      });
      return states.flat();
    },
    async unreserveIds(scope, ids, ttlMs) {
      checkPositive('unreserveIds ttlMs', ttlMs);
      const grid = gridOf(scope, ttlMs, Date.now());
      const calls = chunkBySize(ids, () => 1, ID_CHUNK).map((chunk) => redis.weirWindowUnreserve(grid.route, ...grid.args, ...chunk.map(idDigest)));
      await Promise.all(calls);
    },
    // The hot path's single reads skip readMany's grouping.
    async read(entity, reads) {
      checkReads(reads);
      if (reads.length === 0) return [];
      return (await redis.weirWindowReadOne(key.entity(entity), ...readArgs(reads))).map(toNumber);
    },
    readMany,
    async claim(scope, namespace, ids, ttlMs) {
      checkPositive('claim ttlMs', ttlMs);
      const claimed = ids.map(() => false);
      const keyed = ids.map((id, i) => ({ i, key: key.claim(scope, namespace, id) }));
      await eachInOrder(cluster, groupBySlot(cluster, keyed, (k) => k.key), () => 1, CLAIM_CHUNK, async (chunk) => {
        const answers = await redis.weirWindowClaim(chunk.length, ...chunk.map((k) => k.key), String(ttlMs));
        chunk.forEach((k, j) => (claimed[k.i] = answers[j] === 1));
      });
      return claimed;
    },
    // A write is as durable as the server's persistence makes it when its reply comes.
    async synced() {},
    async release(scope, namespace, ids) {
      await Promise.all(ids.map((id) => redis.unlink(key.claim(scope, namespace, id))));
    },
    async hold(scope, namespace, id, { holder, token, ttlMs }) {
      checkPositive('hold ttlMs', ttlMs);
      const [won, h, t, e] = await redis.weirWindowHold(key.hold(scope, namespace, id), holder, token, String(Math.ceil(ttlMs)));
      return { won: won === 1, hold: { holder: h, token: t, expiresAt: Number(e) } };
    },
    async readHold(scope, namespace, id) {
      const [h, t, e] = await redis.hmget(key.hold(scope, namespace, id), 'h', 't', 'e');
      return h && t && e ? ({ holder: h, token: t, expiresAt: Number(e) } satisfies Hold) : null;
    },
    async dropHold(scope, namespace, id, holder) {
      return (await redis.weirWindowDropHold(key.hold(scope, namespace, id), holder)) === 1;
    },
    async schedule(scope, queue, entries) {
      if (entries.length === 0) return;
      const args: (string | number)[] = ['LT'];
      for (const e of entries) {
        checkFinite('schedule dueAt', e.dueAt);
        args.push(e.dueAt, e.id);
      }
      await queuesReady();
      // LT keeps the earlier due time of an entity already queued; new entities are added.
      await redis.zadd(key.queue(scope, queue), ...args);
    },
    async takeDue(scope, queue, now, limit, lease) {
      checkPositive('takeDue limit', limit);
      if (lease) checkFinite('lease dueAt', lease.dueAt);
      await queuesReady();
      const leaseArgs = lease ? [String(lease.dueAt), lease.prefix] : [];
      const leaseKey = key.queue(scope, lease ? lease.queue : queue);
      // A script serves nothing else while it runs: TAKE_CHUNK ids each, one after another.
      const taken: string[] = [];
      while (taken.length < limit) {
        const want = Math.min(TAKE_CHUNK, limit - taken.length);
        const ids = await redis.weirWindowTakeDue(key.queue(scope, queue), leaseKey, String(now), String(want), ...leaseArgs);
        taken.push(...ids);
        if (ids.length < want) break;
      }
      return taken;
    },
    async unschedule(scope, queue, ids) {
      if (ids.length === 0) return;
      await queuesReady();
      await Promise.all(chunkBySize(ids, () => 1, CLAIM_CHUNK).map((chunk) => redis.zrem(key.queue(scope, queue), ...chunk)));
    },
    async putValues(scope, namespace, entries) {
      // MSET is atomic in one slot: all values of a call or none.
      for (const chunk of chunkBySize(entries, (e) => e.value.length + 64, VALUE_CHUNK_BYTES)) {
        await redis.mset(...chunk.flatMap((e) => [key.value(scope, namespace, e.id), e.value]));
      }
    },
    async getValues(scope, namespace, ids) {
      const answers: (string | null)[] = [];
      for (const chunk of chunkBySize(ids, () => 1, CLAIM_CHUNK)) answers.push(...(await redis.mget(...chunk.map((id) => key.value(scope, namespace, id)))));
      return answers;
    },
    async deleteValues(scope, namespace, ids) {
      await Promise.all(chunkBySize(ids, () => 1, CLAIM_CHUNK).map((chunk) => redis.unlink(...chunk.map((id) => key.value(scope, namespace, id)))));
    },
    async deleteEntity(entity) {
      // Event ids stay until their TTL: they guard against redelivery, and hold no entity data.
      await redis.unlink(key.entity(entity), key.marker(entity));
    },
    health() {
      if (closed) return down('closed');
      return redis.status === 'ready' ? up : down(`not connected to Redis${cluster ? ' Cluster' : ''} (${redis.status})`);
    },
    async close() {
      closed = true;
      // Unreachable, there is nothing to say goodbye to: drop the connection and stop reconnecting.
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
