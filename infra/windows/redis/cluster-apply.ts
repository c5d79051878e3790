import { hash } from 'node:crypto';
import type { ApplyRequest, EntityRef } from '../types.js';
import { idDigest } from '../event-ids.js';
import { eachInOrder, groupBy, groupBySlot, type RedisClient } from './client.js';
import type { InFlightLimit } from '../../in-flight-limit.js';

/**
 * `apply` on a Redis Cluster, where one script call may touch the keys of one hash slot only.
 *
 * An event id is remembered per organization (tag {scope}: one place answers "seen before?" for
 * every entity, which the exactly-once rule per organization needs, and it keeps ≈25 B an id in
 * small listpack buckets), while an entity's series live under its own tag {scope:id} so the
 * entities of one organization spread over the cluster. Tagging entities by organization would
 * put a whole tenant in one slot, and buckets of ids tagged by entity could not tell that an id
 * re-sent with another entity is the same event. So an apply with an event id runs in steps, each
 * one script in one slot, each safe to repeat:
 *   1. ONCE_BEGIN (org's id slot): an id applied, or being applied to another entity, stops here
 *      (answers false). Else the id is marked `p<owner>`: being applied to this entity.
 *   2. APPLY_ENTITY (entity slot): the updates and a marker (the id's digest, in the entity's
 *      marker hash) in one atomic step; a marker already there means step 2 ran before.
 *   3. ONCE_COMMIT (org's id slot): the id becomes applied (`1`, as on one server).
 *   4. HDEL of the marker: it was only needed until step 3.
 * A crash after step 1 or 2 leaves the id `p<owner>`; the redelivered event passes step 1 again
 * (same owner), step 2 applies or finds its marker, step 3 commits: counted once. A crash before
 * step 4 leaves a marker that expires with the id. Intake sees `p<owner>` as reserved. Between
 * two entities racing for one id, step 1 lets the first through and answers the other false.
 * Cost: two round trips more than one server's single script, and a marker of ≈30 B per id
 * while it is in flight; at rest an id weighs what it weighs on one server.
 */

/** An id grid's slots, its arguments (scripts.ts IDS), and the key that routes its calls. */
export interface IdGrid {
  first: number;
  last: number;
  expireAt: number;
  args: string[];
  route: string;
}

export interface ClusterApplyDeps {
  redis: RedisClient;
  /** The store's bound on apply work in flight; a new id weighs what an id weighs in an apply on one server (4), a commit 1 an id. */
  limit: InFlightLimit;
  idleTtl: string;
  entityKey: (e: EntityRef) => string;
  markerKey: (e: EntityRef) => string;
  /** The id grid of a scope and window at `now`: one object while its slots hold. */
  grid: (scope: string, ttlMs: number, now: number) => IdGrid;
  /** Pushes the arguments of a request's updates (index.ts pushUpdates). */
  pushUpdates: (args: (string | Buffer)[], r: ApplyRequest) => void;
  applyWeight: number;
  idChunk: number;
}

/** 8 bytes naming the entity an id is being applied to (step 1's owner). */
const ownerOf = (e: EntityRef): Buffer => hash('sha256', `${e.scope}\0${e.id}`, 'buffer').subarray(0, 8);

interface Item {
  r: ApplyRequest;
  index: number;
  grid?: IdGrid;
  digest?: Buffer;
}

export function createClusterApply(d: ClusterApplyDeps): (requests: ApplyRequest[]) => Promise<boolean[]> {
  const { redis, limit } = d;

  return async function apply(requests) {
    const now = Date.now();
    const items: Item[] = requests.map((r, index) =>
      r.once ? { r, index, grid: d.grid(r.entity.scope, r.once.ttlMs, now), digest: idDigest(r.once.id) } : { r, index },
    );
    const onceItems = items.filter((it) => it.digest);
    const go = new Set<Item>(items.filter((it) => !it.digest));

    await eachInOrder(true, groupBy(onceItems, (it) => it.grid!), () => 1, d.idChunk, async (chunk) => {
      const g = chunk[0]!.grid!;
      const args = chunk.flatMap((it) => [it.digest!, ownerOf(it.r.entity)]);
      const answers = await limit.run(4 * chunk.length, () => redis.weirWindowOnceBegin(g.route, ...g.args, ...args));
      chunk.forEach((it, i) => answers[i] === 1 && go.add(it));
    });

    const applied: boolean[] = requests.map(() => false);
    const started = items.filter((it) => go.has(it));
    const weight = (it: Item): number => (it.digest ? 3 : 1) + it.r.updates.length;
    await eachInOrder(true, groupBySlot(true, started, (it) => d.entityKey(it.r.entity)), weight, d.applyWeight, async (chunk) => {
      const keys: string[] = [];
      const args: (string | Buffer)[] = [d.idleTtl];
      let w = 0;
      for (const it of chunk) {
        w += weight(it);
        keys.push(d.entityKey(it.r.entity));
        if (it.digest) {
          keys.push(d.markerKey(it.r.entity));
          args.push(`${it.grid!.expireAt},${it.r.updates.length}`, it.digest);
        } else {
          args.push(`,${it.r.updates.length}`);
        }
        d.pushUpdates(args, it.r);
      }
      const answers = await limit.run(w, () => redis.weirWindowApplyEntity(keys.length, ...keys, ...args));
      chunk.forEach((it, i) => (applied[it.index] = answers[i] === 1));
    });

    const toCommit = started.filter((it) => it.digest);
    await eachInOrder(true, groupBy(toCommit, (it) => it.grid!), () => 1, d.idChunk, async (chunk) => {
      const g = chunk[0]!.grid!;
      await limit.run(chunk.length, () => redis.weirWindowOnceCommit(g.route, ...g.args, ...chunk.map((it) => it.digest!)));
    });
    await eachInOrder(true, groupBy(toCommit, (it) => d.markerKey(it.r.entity)), () => 1, d.idChunk, async (chunk) => {
      await limit.run(chunk.length, () => redis.hdel(d.markerKey(chunk[0]!.r.entity), ...chunk.map((it) => it.digest!)));
    });
    return applied;
  };
}
