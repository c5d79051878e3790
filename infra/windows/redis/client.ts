import { Cluster, Redis } from 'ioredis';
import calculateSlot from 'cluster-key-slot';
import { outageOptions } from './outage.js';

/** A connection to one Redis server or to a Redis Cluster; the window store speaks to either. */
export type RedisClient = Redis | Cluster;

export interface RedisAddress {
  cluster: boolean;
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  tls: boolean;
  /** Database number (one server only: a cluster has database 0 alone). */
  db: number;
}

const SCHEMES: Record<string, { cluster: boolean; tls: boolean }> = {
  'redis:': { cluster: false, tls: false },
  'rediss:': { cluster: false, tls: true },
  'redis+cluster:': { cluster: true, tls: false },
  'rediss+cluster:': { cluster: true, tls: true },
};

/**
 * Reads `redis://[user:password@]host[:port][/db]`, or `redis+cluster://[user:password@]host:port,host:port`
 * (the seed nodes of a Redis Cluster; `rediss` for TLS). `cluster` forces cluster mode on a plain
 * URL (REDIS_CLUSTER=true). Throws an Error saying what is wrong, never echoing the password.
 */
export function parseRedisUrl(url: string, cluster = false): RedisAddress {
  const m = /^([a-z+]+:)\/\/(?:([^@/]*)@)?([^/?#]+)(?:\/(\d*))?$/.exec(url);
  const scheme = m && SCHEMES[m[1]!];
  if (!m || !scheme) throw new Error('must be redis://host:port, rediss://host:port or redis+cluster://host:port,host:port');
  const nodes = m[3]!.split(',').map((hostPort) => {
    const at = hostPort.includes(':') ? hostPort.lastIndexOf(':') : hostPort.length;
    const port = at === hostPort.length ? 6379 : Number(hostPort.slice(at + 1));
    if (at < 1 || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`node "${hostPort}" must be host:port`);
    return { host: hostPort.slice(0, at), port };
  });
  if (nodes.length > 1 && !scheme.cluster) throw new Error('several nodes need redis+cluster://');
  const db = Number(m[4] || 0);
  if (db > 0 && (scheme.cluster || cluster)) throw new Error('a Redis Cluster has database 0 only');
  const [user, password] = m[2] === undefined ? [] : m[2].split(':', 2).map(decodeURIComponent);
  return { cluster: scheme.cluster || cluster, nodes, tls: scheme.tls, db, ...(user ? { username: user } : {}), ...(password ? { password } : {}) };
}

/**
 * Connects with auto-pipelining (the commands of one tick go out together; per node in a cluster)
 * and the outage options (outage.ts). A cluster client learns the slot map from the seed nodes and
 * follows MOVED and ASK redirections itself. `unpipelined`: scripts whose key count comes first
 * (numberOfKeys at call time), which ioredis's auto-pipelining would route by that number on a
 * cluster; they go out on their own, routed by their first key.
 */
export function connectRedis(address: RedisAddress, commandTimeoutMs: number, unpipelined: string[] = []): RedisClient {
  const options = {
    ...outageOptions(commandTimeoutMs),
    ...(address.username ? { username: address.username } : {}),
    ...(address.password ? { password: address.password } : {}),
    ...(address.tls ? { tls: {} } : {}),
  };
  if (address.cluster) return new Cluster(address.nodes, { enableAutoPipelining: true, autoPipeliningIgnoredCommands: unpipelined, redisOptions: options });
  const [node] = address.nodes;
  return new Redis({ ...node, ...options, db: address.db, enableAutoPipelining: true });
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
