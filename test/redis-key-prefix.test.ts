import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlatform, closePlatform } from '../infra/build-platform.js';
import { loadConfig } from '../infra/config.js';
import type { Platform } from '../infra/platform.js';
import { requireAddress, shouldRun } from './support/infra.js';

/**
 * Two deployments on one Redis, each with its REDIS_KEY_PREFIX: a poller of one never takes the
 * other's queued work (a webhook retry schedule's entries were taken by another deployment's
 * poller and never sent when both used the same keys).
 */
describe.skipIf(!shouldRun('redisUrl'))('REDIS_KEY_PREFIX', () => {
  const dirs: string[] = [];
  const platforms: Platform[] = [];
  const run = randomUUID().slice(0, 8);
  afterAll(async () => {
    await Promise.all(platforms.map((p) => closePlatform(p)));
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  async function deployment(prefix: string): Promise<Platform> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-prefix-'));
    dirs.push(dir);
    // chDB allows one data directory per process: both deployments of this test share the first one's.
    const config = loadConfig({ DATA_DIR: dir, CHDB_PATH: path.join(dirs[0]!, 'clickhouse'), REDIS_URL: requireAddress('redisUrl'), REDIS_KEY_PREFIX: prefix });
    const p = await buildPlatform(config, pino({ level: 'silent' }));
    platforms.push(p);
    return p;
  }

  it("keeps each deployment's keys under its prefix, out of the other's reach", async () => {
    const [a, b] = [await deployment(`a-${run}`), await deployment(`b-${run}`)];
    await a.windows.schedule('webhooks', 'retry', [{ id: 'job-a', dueAt: 1 }]);
    await b.windows.schedule('webhooks', 'retry', [{ id: 'job-b', dueAt: 1 }]);
    expect(await b.windows.takeDue('webhooks', 'retry', 10, 100)).toEqual(['job-b']);
    expect(await a.windows.takeDue('webhooks', 'retry', 10, 100)).toEqual(['job-a']);

    const redis = new Redis(requireAddress('redisUrl'));
    try {
      await a.windows.schedule('webhooks', 'retry', [{ id: 'job-a2', dueAt: 1 }]);
      expect(await redis.keys(`a-${run}:w:*`)).toEqual([`a-${run}:w:q:{webhooks}:retry`]);
    } finally {
      redis.disconnect();
    }
  });

  it('refuses a prefix that could break the key layout, saying why', () => {
    expect(() => loadConfig({ REDIS_KEY_PREFIX: 'a{b}' })).toThrow(/REDIS_KEY_PREFIX.*letters, digits/);
  });
});
