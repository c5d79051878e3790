import { Cluster, Redis } from 'ioredis';
import calculateSlot from 'cluster-key-slot';
import { chunkBySize } from '../../chunk.js';
import { outageOptions } from './outage.js';
import type { RedisAddress } from './url.js';

/** A connection to one Redis server or to a Redis Cluster; the window store speaks to either. */
export type RedisClient = Redis | Cluster;

/**
 * Connects with auto-pipelining (the commands of one tick go out together; per node in a cluster)
 * and the outage options (outage.ts). A cluster client learns the slot map from the seed nodes and
 * follows MOVED and ASK redirections itself. `unpipelined`: scripts whose key count comes first
 * (numberOfKeys at call time), which ioredis's auto-pipelining would route by that number on a
 * cluster; they go out on their own, routed by their first key. `sentAtOnce`: commands a single
 * server gets as soon as they are called. ioredis sends one auto-pipeline at a time per connection
 * and the next only once every answer of the last is in, so commands that each hold the server
 * about a millisecond, pipelined, make the client and the server take turns: while one works the
 * other waits (issue 31: Redis slept a third of a backlog's drain).
 */
export function connectRedis(address: RedisAddress, commandTimeoutMs: number, unpipelined: string[] = [], sentAtOnce: string[] = []): RedisClient {
  const options = {
    ...outageOptions(commandTimeoutMs),
    ...(address.username ? { username: address.username } : {}),
    ...(address.password ? { password: address.password } : {}),
    ...(address.tls ? { tls: {} } : {}),
  };
  if (address.cluster) {
    const cluster = new Cluster(address.nodes, { enableAutoPipelining: true, autoPipeliningIgnoredCommands: unpipelined, redisOptions: options });
    // Commands wait for the slot map at start. Once the cluster was reached, a command issued while
    // it is unreachable fails at once (as maxRetriesPerRequest does on one server): the cluster
    // client's offline queue would hold it, and the request, for as long as the outage lasts.
    cluster.once('ready', () => (cluster.options.enableOfflineQueue = false));
    return cluster;
  }
  const [node] = address.nodes;
  return new Redis({ ...node, ...options, db: address.db, enableAutoPipelining: true, autoPipeliningIgnoredCommands: sentAtOnce });
}

/** The hash slot of a key (CRC16 of its hash tag, as Redis Cluster computes it). */
export const slotOf = (key: string): number => calculateSlot(key);

/** Items grouped by a key of theirs, in their order. */
export function groupBy<T, K>(items: T[], keyOf: (item: T) => K): T[][] {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}

/** Items grouped by the hash slot of their key; on one server (cluster false), one group. */
export function groupBySlot<T>(cluster: boolean, items: T[], keyOf: (item: T) => string): T[][] {
  if (!cluster) return items.length > 0 ? [items] : [];
  return groupBy(items, (item) => slotOf(keyOf(item)));
}

/**
 * Runs `call` for the groups at once (auto-pipelined, per node). On a cluster the chunks of one
 * group run one after another: a redirection (MOVED while the client learns the slot map, or during
 * a resharding) sends a command again after later ones, so two chunks of one slot sent together may
 * run in either order, and where a later chunk repeats an id of an earlier one the first must win.
 * One server runs the commands of its connection in the order sent, so there every chunk goes at once.
 */
export const eachInOrder = <T>(cluster: boolean, groups: T[][], size: (t: T) => number, budget: number, call: (chunk: T[]) => Promise<void>): Promise<unknown> =>
  cluster
    ? Promise.all(
        groups.map(async (g) => {
          for (const chunk of chunkBySize(g, size, budget)) await call(chunk);
        }),
      )
    : Promise.all(groups.flatMap((g) => chunkBySize(g, size, budget)).map(call));
