import type { Redis, Result } from 'ioredis';
import type { ApplyRequest, ApplySource } from '../types.js';
import { chunkBySize } from '../../chunk.js';
import { ID_DIGEST_BYTES, idDigest, writeIdDigest } from '../event-ids.js';
import type { InFlightLimit } from '../../in-flight-limit.js';
import type { IdGrid } from './cluster-apply.js';
import { CLAIM_BUCKETS, claimBucket, claimLimit, claimPlace, claimSecond, claimSlots } from './claim-layout.js';
import { framedScript, RespWriter } from './resp-frame.js';
import { sendFramed } from './framed-replies.js';
import { APPLY_MARKED, OLD_APPLIED } from './scripts.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    weirWindowOldApplied(route: string, ...args: (string | Buffer)[]): Result<number[], Context>;
  }
}

/**
 * `apply` of a consumer's batch on one Redis server: its event ids claimed by plain pipelined
 * commands, its entity updates in one script a chunk that touches no id. Issue 31: most of Redis's
 * cost of an event was the Lua interpreter's glue around each redis.call, half of it for the id
 * (bench/results/counters-redis-ids.md); a claim without Lua costs a few plain commands.
 *
 * 1. Claim (claim-layout.ts): per id an HGET in the older claim slot and an HSETNX in the newest,
 *    whose value names the event's place in the log, `<topic>,<partition>,<offset>` (and the
 *    claim's second, so that a claim older than the window counts as absent). An id claimed
 *    under that same place is this event's own earlier attempt (a crash, a redelivery, a zombie
 *    member still working on a partition it lost): it goes on to step 2. A claim naming another
 *    place is another appearance of the event (re-sent, under another entity, on another
 *    partition), which counts it: skipped. Claims live apart from intake's reservations (today's
 *    layout, scripts.ts IDS), so a reservation needs no compare-and-set to become a claim, and
 *    RESERVE answers `applied` for a claimed id (it is in the log: it will be applied).
 * 2. Apply (scripts.ts APPLY_MARKED): the claimed requests of a chunk whose offsets are above the
 *    partition's applied-through mark, and the mark raised to the chunk's last offset, in one
 *    atomic script. A partition's slices come in offset order, so of two attempts at an offset (a
 *    redelivery after a crash between the steps, or a zombie's late slice beside the new owner's)
 *    the first script applies it and the second finds it below the mark.
 * Ids applied in today's layout before a scope's first claim (an upgrade) are still found: while
 * they may live, a read-only script searches it beside the claims (OLD_APPLIED). Members of an
 * older version still running beside this one (a rolling upgrade) are not seen past that moment.
 * The mark assumes a partition's offsets only grow: a topic deleted and made again starts below it
 * and its events would be skipped until it passes (the mark idles out with the store's idle TTL).
 */
export interface PlainApplyDeps {
  redis: Redis;
  limit: InFlightLimit;
  idleTtl: string;
  /** The base of a scope's claim keys for a window (claim-layout.ts); slot and bucket follow. */
  claimsKey: (scope: string, windowMs: number) => string;
  /** A partition's applied-through mark. */
  markKey: (topic: string, partition: number) => string;
  /** The grid of a scope's ids in today's layout (scripts.ts IDS); its route is the scope's meta key. */
  grid: (scope: string, ttlMs: number, now: number) => IdGrid;
  /** An entity key up to its escaped id, and the key written from it (index.ts). */
  entityHead: (scope: string) => string;
  writeEntityKey: (w: RespWriter, head: string, entityId: string) => void;
  writeUpdates: (w: RespWriter, r: ApplyRequest) => void;
  weightOf: (r: ApplyRequest) => number;
  applyWeight: number;
  idChunk: number;
}

/** A scope's claim keys for a window in its newest slot, and which of its buckets this process has set the expiry of (once a key, not once a claim). */
interface ClaimScope {
  scope: string;
  windowMs: number;
  base: string;
  newest: number;
  expireAt: number;
  /** This call's second within the newest slot, and the lowest second of a claim in the slot before that counts. */
  second: number;
  limit: number;
  expiring: Uint8Array;
}

/** The 8 bytes of a digest stored as its claim's field. */
const writeField = (d: Buffer, buf: Buffer, at: number): void => void d.copy(buf, at, 4, ID_DIGEST_BYTES);

/** A claim key written in parts: the scope's base, the slot, the bucket. */
function writeClaimKey(w: RespWriter, claims: ClaimScope, slot: number, bucket: number): void {
  w.begin(claims.base.length + 16);
  w.text(claims.base);
  w.number(slot);
  w.text(':');
  w.number(bucket);
  w.end();
}

/**
 * Organizations (per window) whose claim keys and upgrade record a process keeps at once: each holds
 * a byte per claim bucket (4 KiB). Past the bound all are dropped; what they saved is only work
 * (an expiry set again, the upgrade record read again), so a flood of organizations costs
 * memory up to the bound, no more.
 */
const HELD_SCOPES = 1_000;

const MINE = 1;
const TAKEN = 2;

export function createPlainApply(deps: PlainApplyDeps) {
  const { redis, limit } = deps;
  const script = framedScript(APPLY_MARKED);
  redis.defineCommand('weirWindowOldApplied', { numberOfKeys: 1, lua: OLD_APPLIED });
  /** Per scope and window: until when today's layout may hold ids applied before the scope's first claim. */
  const oldUntil = new Map<string, number>();
  /** A scope's claim keys for a window while its newest slot holds; one entry per organization and window. */
  const scopes = new Map<string, ClaimScope>();
  const claimScope = (scope: string, windowMs: number, now: number): ClaimScope => {
    const k = `${windowMs}\0${scope}`;
    const slots = claimSlots(windowMs, now);
    let held = scopes.get(k);
    if (held?.newest !== slots.newest) {
      held = { scope, windowMs, base: deps.claimsKey(scope, windowMs), newest: slots.newest, expireAt: slots.expireAt, second: 0, limit: 0, expiring: new Uint8Array(CLAIM_BUCKETS) };
      if (scopes.size >= HELD_SCOPES) scopes.clear();
      scopes.set(k, held);
    }
    held.second = claimSecond(windowMs, held.newest, now);
    held.limit = claimLimit(windowMs, held.newest, now);
    return held;
  };
  /** An id's digest, computed in place for each claim (the frame copies its field out). */
  const digest = Buffer.alloc(ID_DIGEST_BYTES);
  const numKeys = new RespWriter(16);
  const keyArgs = new RespWriter();
  const head = new RespWriter(64);
  const requestArgs = new RespWriter();

  /**
   * The first claim of a scope (per window) records when its ids in today's layout are all gone:
   * the latest expiry an id added there now gets, or 0 when the scope has none. Every process
   * reads the first record, so all agree on it.
   */
  async function oldLayoutUntil(scope: string, windowMs: number, now: number): Promise<number> {
    const k = `${windowMs}\0${scope}`;
    let until = oldUntil.get(k);
    if (until === undefined) {
      const grid = deps.grid(scope, windowMs, now);
      const held = (await redis.exists(grid.route)) === 1;
      const mine = held ? grid.expireAt : 0;
      const first = (await redis.call('SET', `${deps.claimsKey(scope, windowMs)}since`, String(mine), 'PX', deps.idleTtl, 'NX', 'GET')) as string | null;
      until = first === null ? mine : Number(first);
      if (oldUntil.size >= HELD_SCOPES) oldUntil.clear();
      oldUntil.set(k, until);
    }
    return until;
  }

  /** Answers per request MINE (go on to the mark) or TAKEN (another appearance of the event counts it). */
  async function claim(requests: ApplyRequest[], source: ApplySource, now: number): Promise<Uint8Array> {
    const state = new Uint8Array(requests.length).fill(MINE);
    // Per call: the calls of several partitions build theirs at once.
    const frame = new RespWriter(160 * requests.length);
    let commands = 0;
    /** Per request with an id: where its HGET's answer is, and its claim's scope and bucket. */
    const sent: { i: number; at: number; claims: ClaimScope; bucket: number }[] = [];
    /** Buckets whose expiry this call sets, taken back if it fails. */
    const expiring: { claims: ClaimScope; bucket: number }[] = [];
    const old = new Map<IdGrid, { i: number; digest: Buffer }[]>();
    /** The first request of this call with an id: a later one with the same id, at whatever offset, is a repeat. */
    const firstWith = new Map<string, ApplyRequest>();
    let claims: ClaimScope | undefined;
    let until = 0;
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      if (!r.once) continue;
      const first = firstWith.get(r.once.id);
      if (first?.entity.scope === r.entity.scope && first.once!.ttlMs === r.once.ttlMs) {
        state[i] = TAKEN;
        continue;
      }
      firstWith.set(r.once.id, r);
      if (claims?.scope !== r.entity.scope || claims.windowMs !== r.once.ttlMs) {
        claims = claimScope(r.entity.scope, r.once.ttlMs, now);
        until = oldUntil.get(`${r.once.ttlMs}\0${r.entity.scope}`) ?? (await oldLayoutUntil(r.entity.scope, r.once.ttlMs, now));
      }
      writeIdDigest(r.once.id, digest, 0);
      const bucket = claimBucket(digest);
      frame.array(3);
      frame.string('HGET');
      writeClaimKey(frame, claims, claims.newest - 1, bucket);
      frame.computed(8, writeField, digest);
      frame.array(4);
      frame.string('HSETNX');
      writeClaimKey(frame, claims, claims.newest, bucket);
      frame.computed(8, writeField, digest);
      frame.begin(source.topic.length + 24);
      frame.text(source.topic);
      frame.text(',');
      frame.number(source.partition);
      frame.text(',');
      frame.number(source.offsets[i]!);
      frame.text(',');
      frame.number(claims.second);
      frame.end();
      sent.push({ i, at: commands, claims, bucket });
      commands += 2;
      if (claims.expiring[bucket] === 0) {
        claims.expiring[bucket] = 1;
        expiring.push({ claims, bucket });
        frame.array(3);
        frame.string('PEXPIREAT');
        writeClaimKey(frame, claims, claims.newest, bucket);
        frame.begin(16);
        frame.number(claims.expireAt);
        frame.end();
        commands++;
      }
      if (now < until) {
        const grid = deps.grid(r.entity.scope, r.once.ttlMs, now);
        const ids = old.get(grid) ?? [];
        old.set(grid, ids);
        ids.push({ i, digest: Buffer.from(digest) });
      }
    }
    if (commands === 0) return state;
    const oldCalls: { ids: { i: number }[]; answer: Promise<number[]> }[] = [];
    for (const [grid, ids] of old) {
      for (const chunk of chunkBySize(ids, () => 1, deps.idChunk)) oldCalls.push({ ids: chunk, answer: redis.weirWindowOldApplied(grid.route, ...grid.args, ...chunk.map((c) => c.digest)) });
    }
    let answers: unknown[];
    let oldApplied: number[][];
    try {
      // Awaited together: when one fails, the others' failures (the same outage) are not left unhandled.
      [answers, oldApplied] = await Promise.all([limit.run(sent.length, () => sendFramed(redis, frame.view(), commands)), Promise.all(oldCalls.map((c) => c.answer))]);
    } catch (err) {
      for (const e of expiring) e.claims.expiring[e.bucket] = 0;
      throw err;
    }
    const placeOf = (i: number): string => `${source.topic},${source.partition},${source.offsets[i]}`;
    const ask: typeof sent = [];
    for (const s of sent) {
      const older = answers[s.at] as string | null;
      const place = older === null ? null : claimPlace(older, s.claims.limit);
      if (place !== null) state[s.i] = place === placeOf(s.i) ? MINE : TAKEN;
      else if (answers[s.at + 1] !== 1) ask.push(s);
    }
    if (ask.length > 0) {
      // Claimed before in the newest slot: by this event's own earlier attempt, or by another appearance.
      const q = redis.pipeline();
      for (const s of ask) q.hget(`${s.claims.base}${s.claims.newest}:${s.bucket}`, idDigest(requests[s.i]!.once!.id).subarray(4));
      const holders = answersOf(await q.exec());
      ask.forEach((s, k) => {
        if (holders[k] === null) throw new Error('an event id claim vanished between two reads of it');
        // Every claim in the newest slot is in the window.
        state[s.i] = claimPlace(holders[k] as string, 0) === placeOf(s.i) ? MINE : TAKEN;
      });
    }
    oldCalls.forEach((call, n) => call.ids.forEach((c, k) => oldApplied[n]![k] === 1 && (state[c.i] = TAKEN)));
    return state;
  }

  return async function apply(requests: ApplyRequest[], source: ApplySource): Promise<boolean[]> {
    checkSource(requests, source);
    const offsets = source.offsets;
    const state = await claim(requests, source, Date.now());
    const applied = requests.map(() => false);
    const mark = deps.markKey(source.topic, source.partition);
    const calls: Promise<void>[] = [];
    /** The mark the previous script of this call raised it to: its own script checks that it ran. */
    let from = '';
    const indexes = requests.map((_, i) => i);
    for (const chunk of chunkBySize(indexes, (i) => deps.weightOf(requests[i]!), deps.applyWeight)) {
      const last = chunk[chunk.length - 1]!;
      // An offset's requests must all be applied before the mark passes it.
      const target = offsets[last + 1] === offsets[last] ? offsets[last]! - 1 : offsets[last]!;
      const mine = chunk.filter((i) => state[i] === MINE);
      if (mine.length === 0) continue;
      keyArgs.reset();
      requestArgs.reset();
      let weight = 0;
      let scope: string | undefined;
      let entityHead = '';
      for (const i of mine) {
        const r = requests[i]!;
        weight += deps.weightOf(r);
        if (r.entity.scope !== scope) entityHead = deps.entityHead((scope = r.entity.scope));
        deps.writeEntityKey(keyArgs, entityHead, r.entity.id);
        requestArgs.begin(12);
        requestArgs.number(offsets[i]!);
        requestArgs.text(',');
        requestArgs.number(r.updates.length);
        requestArgs.end();
        deps.writeUpdates(requestArgs, r);
      }
      keyArgs.string(mark);
      numKeys.reset();
      numKeys.string(String(keyArgs.count));
      head.reset();
      head.string(deps.idleTtl);
      head.string(from);
      head.string(String(target));
      const frame = script.frame(numKeys, keyArgs, head, requestArgs);
      calls.push(
        limit.run(weight, async () => {
          const out = (await script.call(redis, frame)) as number[];
          mine.forEach((i, k) => (applied[i] = out[k] === 1));
        }),
      );
      from = String(target);
    }
    await Promise.all(calls);
    return applied;
  };
}

/** A pipeline's answers, or its first error. */
function answersOf(results: [Error | null, unknown][] | null): unknown[] {
  if (!results) throw new Error('a pipeline of event id claims was discarded');
  return results.map(([err, answer]) => {
    if (err) throw err;
    return answer;
  });
}

function checkSource(requests: ApplyRequest[], source: ApplySource): void {
  const { offsets } = source;
  if (offsets.length !== requests.length) throw new Error(`apply source has ${offsets.length} offsets for ${requests.length} requests`);
  for (let i = 0; i < offsets.length; i++) {
    if (!Number.isSafeInteger(offsets[i]) || offsets[i]! < 0 || (i > 0 && offsets[i]! < offsets[i - 1]!)) throw new Error(`apply source offsets must be safe integers in order, got ${offsets[i]} at ${i}`);
  }
}
