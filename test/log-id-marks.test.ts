import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlatform, closePlatform } from '../infra/build-platform.js';
import { loadConfig } from '../infra/config.js';
import type { Platform } from '../infra/platform.js';
import type { ApplyRequest } from '../infra/windows/types.js';
import { requireAddress, shouldRun } from './support/infra.js';

/**
 * The Redis store's applied-through marks (infra/windows/redis/plain-claims.ts) belong to one log.
 * An embedded log started afresh over the same Redis begins at offset 0 again: with marks keyed by
 * topic name alone, its first events were skipped as applied.
 */
describe.skipIf(!shouldRun('redisUrl'))('applied-through marks and the embedded log they belong to', () => {
  const dirs: string[] = [];
  const open: Platform[] = [];
  const prefix = `logid-${randomUUID().slice(0, 8)}`;
  afterAll(async () => {
    await Promise.all(open.map((p) => closePlatform(p)));
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  async function platformOn(dir: string): Promise<Platform> {
    // chDB allows one data directory per process: every platform of this test shares the first one's.
    const config = loadConfig({ DATA_DIR: dir, CHDB_PATH: path.join(dirs[0]!, 'clickhouse'), REDIS_URL: requireAddress('redisUrl'), REDIS_KEY_PREFIX: prefix });
    const p = await buildPlatform(config, pino({ level: 'silent' }));
    open.push(p);
    return p;
  }

  async function close(p: Platform): Promise<void> {
    open.splice(open.indexOf(p), 1);
    await closePlatform(p);
  }

  const newDir = async (): Promise<string> => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-logid-'));
    dirs.push(dir);
    return dir;
  };

  /** Event `id` at offset 0 of partition 0 of `events`, as the counter consumer applies it. */
  const applyFirst = (p: Platform, id: string): Promise<boolean[]> => {
    const request: ApplyRequest = { entity: { scope: 'org', id: 'card-1' }, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }], once: { id, ttlMs: 3_600_000 } };
    return p.windows.apply([request], { source: { topic: 'events', partition: 0, offsets: [0] } });
  };

  it('counts the first event of a log started afresh, and still knows offset 0 of a log reopened', async () => {
    const first = await newDir();
    let p = await platformOn(first);
    expect(await applyFirst(p, 'event-a')).toEqual([true]);
    await close(p);

    p = await platformOn(await newDir());
    expect(await applyFirst(p, 'event-b')).toEqual([true]);
    await close(p);

    // The same log directory: offset 0 was applied (a redelivery), whatever its id.
    p = await platformOn(first);
    expect(await applyFirst(p, 'event-c')).toEqual([false]);
  });
});
