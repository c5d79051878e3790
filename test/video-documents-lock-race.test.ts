import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kill, spawnFixture, type Child } from './fixtures/bus-crash-harness.js';
import { videoClient } from './fixtures/video-client.js';
import { requireAddress, shouldRun } from './support/infra.js';

/**
 * Two API processes on one Redis race for the same edit locks: each lock is one compare-and-set
 * in Redis, so for every document exactly one principal wins and the other is told who holds it.
 * Each process has its own chDB (chDB binds one directory per process), so the fixture writes the
 * same documents into each; processes sharing a ClickHouse server share them anyway.
 */

const children: Child[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => kill(c, 'SIGTERM')));
});

const SCRIPT = 'film "Race"\nscene "One" 1s\n  title "y"\n';
const DOCUMENTS = 25;

describe.skipIf(!shouldRun('redisUrl'))('edit locks across two API processes on Redis', () => {
  it('for every document exactly one of two principals racing from two processes gets the lock', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-doc-race-'));
    const run = `${process.pid}x${Date.now()}`;
    const ids = Array.from({ length: DOCUMENTS }, (_, i) => `doc_race${run}n${i}`);
    const start = (name: string) => {
      const c = spawnFixture('./video-api-child.ts', {
        REDIS_URL: requireAddress('redisUrl'),
        API_KEYS: 'org_a:key_a,org_a:key_a2',
        DATA_DIR: path.join(dir, name),
        CHDB_PATH: path.join(dir, name, 'clickhouse'),
        LOG_LEVEL: 'warn',
        SEED_DOCUMENTS: ids.map((id) => `org_a:${id}`).join(','),
      });
      children.push(c);
      return c;
    };
    const procs = [start('one'), start('two')];
    const urls = await Promise.all(procs.map(async (c) => (await c.line('ready', (l) => l.startsWith('READY '))).slice('READY '.length)));
    const [one, two] = [videoClient(urls[0]!, 'key_a'), videoClient(urls[1]!, 'key_a2')];
    const wins = { one: 0, two: 0 };
    for (const id of ids) {
      const answers = await Promise.all([one, two].map((c) => c.call('POST', `/api/documents/${id}/lock`, { ttlSeconds: 60 })));
      expect(answers.map((r) => r.status).sort(), JSON.stringify(answers.map((r) => r.body))).toEqual([200, 409]);
      const winner = answers.find((r) => r.status === 200)!.body;
      const loser = answers.find((r) => r.status === 409)!.body;
      expect(loser).toMatchObject({ locked: true, owner: winner.owner, expiresAt: winner.expiresAt });
      // Both processes see the one lock, and the loser's process refuses the loser's writes.
      for (const c of [one, two]) expect((await c.call('GET', `/api/documents/${id}/lock`)).body).toEqual({ locked: true, owner: winner.owner, expiresAt: winner.expiresAt });
      const loserClient = answers[0]!.status === 409 ? one : two;
      wins[answers[0]!.status === 200 ? 'one' : 'two']++;
      expect((await loserClient.call('PUT', `/api/documents/${id}`, { source: SCRIPT })).status).toBe(423);
    }
    expect(wins.one + wins.two).toBe(DOCUMENTS);
  }, 240_000);
});
