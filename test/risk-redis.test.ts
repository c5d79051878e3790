import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireAddress, shouldRun } from './support/infra.js';
import { clusterAdmin } from './support/redis-cluster.js';
import { startTestProcess } from './support/process.js';
import { riskService } from '../services/risk.js';
import { riskClient } from './fixtures/risk-http.js';
import { waitFor } from './fixtures/counters-http.js';

/** Keys matching a pattern, on one server or on every master of a cluster. */
type KeysOf = (pattern: string) => Promise<string[]>;

async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    out.push(...keys);
  } while (cursor !== '0');
  return out;
}

const backends: [string, 'redisUrl' | 'redisClusterUrl', (url: string) => { keys: KeysOf; quit: () => Promise<unknown> }][] = [
  ['Redis', 'redisUrl', (url) => {
    const redis = new Redis(url);
    return { keys: (pattern) => scanKeys(redis, pattern), quit: () => redis.quit() };
  }],
  ['a Redis Cluster', 'redisClusterUrl', (url) => clusterAdmin(url)],
];

/**
 * The risk check's state on a real Redis and on a Redis Cluster: velocity and baselines across checks, and a GDPR delete
 * that leaves no key of the user behind. Organizations are unique per run (the Redis is shared).
 */
for (const [name, what, connect] of backends) describe.runIf(shouldRun(what))(`risk check on ${name}`, () => {
  const org = `riskredis${process.pid}${Date.now().toString(36)}${what === 'redisUrl' ? '' : 'c'}`;
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  let admin: ReturnType<typeof connect>;

  beforeAll(async () => {
    const url = requireAddress(what);
    admin = connect(url);
    p = await startTestProcess({ services: [riskService()], env: { REDIS_URL: url, API_KEYS: `${org}:key`, RISK_LISTS_DIR: path.join(import.meta.dirname, 'fixtures', 'risk-lists') } });
  });
  afterAll(async () => {
    await p?.stop();
    await admin?.quit();
  });

  /** The organization's keys, with the adapter's escapes undone, so the test does not depend on its key layout. */
  const keysOf = async (pattern = `*${org}*`) => (await admin.keys(pattern)).map((k) => k.replace(/%3a/gi, ':'));

  it('keeps velocity and baselines in Redis, and a GDPR delete removes the user from it', async () => {
    const c = riskClient(p.url, org, 'key');
    await c.putWeights({ velocity: { max_requests: 2 } });
    const body = (s: number) => ({ email: 'r.user@example.com', ip: '81.2.69.160', context: { action: 'login', user_id: 'redis-user', session_id: `s${s}` }, behavior: { keystrokeTimings: [120, 180, 90, 210] } });
    const answers = [];
    for (let s = 1; s <= 3; s++) answers.push((await c.check(body(s))).body);
    expect(answers.map((a) => a.metadata.baseline_sessions)).toEqual([1, 2, 3]);
    expect(answers[2]!.decision.reasons).toContain('Velocity exceeded (3 requests)');
    const of = async (part: string) => (await keysOf()).filter((k) => k.includes(part));
    expect(await of(':u:')).not.toEqual([]);
    expect(await of(':em:')).not.toEqual([]);
    await waitFor(async () => (await c.exportUser('redis-user')).body.checks.length, (n) => n === 3);
    expect((await c.deleteUser('redis-user')).status).toBe(200);
    // Once ids stay until their TTL (they guard against redelivery); the user's state is gone.
    expect((await of(':u:')).filter((k) => !k.includes(':once:'))).toEqual([]);
    expect(await of('redis-user')).toEqual([]);
    expect((await of(':em:')).filter((k) => !k.includes(':once:'))).toEqual([]);
    expect((await of(':ip:')).filter((k) => !k.includes(':once:'))).toEqual([]);
    expect((await c.check(body(9))).body.metadata.baseline_sessions).toBe(1);
  });
});
