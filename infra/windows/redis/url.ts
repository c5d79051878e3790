/** Where the window store's Redis is: one server or the seed nodes of a Redis Cluster. */
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
