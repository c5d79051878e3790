import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisWindowStore } from '../infra/windows/redis/index.js';
import { failFastOnOutage } from '../infra/windows/redis/outage.js';
import { UnavailableError } from '../infra/unavailable.js';
import type { WindowStore } from '../infra/windows/types.js';
import { shouldRun } from './support/infra.js';

const run = promisify(execFile);
const script = path.join(import.meta.dirname, '..', 'infra', 'scripts', 'redis-cluster.sh');

/**
 * A Redis Cluster of the test's own (infra/scripts/redis-cluster.sh on other ports), which it stops:
 * a call while the cluster is down fails at once as unavailable (503 at the edge) instead of
 * waiting in the cluster client's offline queue for the outage to end, and calls succeed again
 * once the cluster is back. Runs where the shared test cluster does (redis-server is there).
 */
describe.runIf(shouldRun('redisClusterUrl'))('a Redis Cluster outage', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let store: WindowStore;
  const cluster = async (command: 'start' | 'stop'): Promise<string> => (await run('bash', [script, command], { env })).stdout.trim().split('\n').pop()!;
  const entity = { scope: 'acme', id: 'u1' };
  const count = () => store.apply([{ entity, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }] }]);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'weir-cluster-outage-'));
    // Three ports and their cluster bus ports (+10000) away from the shared test cluster's.
    env = { ...process.env, WEIR_REDIS_CLUSTER_RUN_DIR: dir, WEIR_REDIS_CLUSTER_PORT: String(18100 + (process.pid % 500) * 3) };
    store = failFastOnOutage(createRedisWindowStore({ url: await cluster('start'), commandTimeoutMs: 1000 }));
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await cluster('stop');
    await rm(dir, { recursive: true, force: true });
  });

  it('fails calls as unavailable while the cluster is down, and serves them again once it is back', async () => {
    expect(await count()).toEqual([true]);
    await cluster('stop');
    await expect(count()).rejects.toBeInstanceOf(UnavailableError);
    await expect(store.read(entity, [{ kind: 'max', series: 'm' }])).rejects.toBeInstanceOf(UnavailableError);
    expect(store.health().ok).toBe(false);

    await cluster('start');
    for (let attempt = 0; ; attempt++) {
      try {
        expect(await count()).toEqual([true]);
        break;
      } catch (err) {
        if (!(err instanceof UnavailableError) || attempt > 100) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    expect(store.health().ok).toBe(true);
  }, 60_000);
});
