import { Cluster } from 'ioredis';
import { parseRedisUrl } from '../../infra/windows/redis/url.js';

/** A test's view of a whole Redis Cluster: KEYS and SCAN answer per node, so it asks every master. */
export interface ClusterAdmin {
  client: Cluster;
  keys(pattern: string): Promise<string[]>;
  /** Removes every key under a prefix (one command per key: they lie in many slots). */
  unlinkAll(prefix: string): Promise<void>;
  quit(): Promise<void>;
}

export function clusterAdmin(url: string): ClusterAdmin {
  const client = new Cluster(parseRedisUrl(url).nodes);
  const keys = async (pattern: string): Promise<string[]> =>
    (await Promise.all(client.nodes('master').map((n) => n.keys(pattern)))).flat().sort();
  return {
    client,
    keys,
    async unlinkAll(prefix) {
      await Promise.all((await keys(`${prefix}*`)).map((k) => client.unlink(k)));
    },
    quit: async () => void (await client.quit()),
  };
}
