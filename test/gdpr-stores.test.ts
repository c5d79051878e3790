import { createHash } from 'node:crypto';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireAddress, shouldRun } from './support/infra.js';
import { startTestProcess } from './support/process.js';
import { riskService } from '../services/risk.js';
import { upsertWebhook, webhooksService } from '../services/webhooks.js';
import { riskClient } from './fixtures/risk-http.js';
import { waitFor } from './fixtures/counters-http.js';
import { startReceiver, type Receiver } from './fixtures/webhook-receiver.js';

/**
 * A GDPR delete against every store of a process that runs the risk check and the webhooks: after
 * it, no String column of any ClickHouse table of the database names the user, and (on Redis) no
 * window-store key does, the deletion tombstone aside (`gdpr:<digest>`, a time and no user data).
 */
const useRedis = shouldRun('redisUrl');

describe(`GDPR delete across every store (${useRedis ? 'Redis' : 'embedded'} window store)`, () => {
  const org = `gdpr${process.pid}${Date.now().toString(36)}`;
  const user = `gdpr-user-${Date.now().toString(36)}`;
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  let rx: Receiver;
  let redis: Redis | undefined;

  beforeAll(async () => {
    rx = await startReceiver();
    p = await startTestProcess({
      services: [riskService(), webhooksService],
      env: {
        ...(useRedis ? { REDIS_URL: requireAddress('redisUrl') } : {}),
        API_KEYS: `${org}:key`,
        RISK_LISTS_DIR: path.join(import.meta.dirname, 'fixtures', 'risk-lists'),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        OTP_DEV_ECHO: 'true',
      },
    });
    if (useRedis) redis = new Redis(requireAddress('redisUrl'));
  });
  afterAll(async () => {
    await p?.stop();
    await rx?.close();
    await redis?.quit();
  });

  const rows = async <T>(query: string, params: Record<string, unknown> = {}) =>
    (await p.platform.analytics.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>();

  /** Every table of the database and String-ish column whose value contains the user id. */
  async function tablesNaming(needle: string): Promise<string[]> {
    const columns = await rows<{ table: string; name: string }>(
      "SELECT table, name FROM system.columns WHERE database = currentDatabase() AND type LIKE '%String%'",
    );
    const hits: string[] = [];
    for (const { table, name } of columns) {
      const [n] = await rows<{ n: string }>(`SELECT count() AS n FROM \`${table}\` WHERE position(toString(\`${name}\`), {needle:String}) > 0`, { needle });
      if (Number(n!.n) > 0) hits.push(`${table}.${name}`);
    }
    return hits;
  }

  it('leaves the user id in no ClickHouse table (webhook messages and deliveries included) and in no window-store key', async () => {
    const c = riskClient(p.url, org, 'key');
    expect((await c.putWebhookConfig({ url: rx.url('/risk'), events: ['risk.high', 'risk.low'], enabled: true })).status).toBe(200);
    for (const event of ['risk.high', 'risk.low']) await upsertWebhook(p.platform, org, { event, url: rx.url('/risk') });
    const blocked = await c.check({ ip: '198.51.100.7', email: 'x@mailinator.com', context: { action: 'payment', user_id: user, session_id: 'gdpr-session' } });
    expect(blocked.body.decision.outcome).toBe('block');
    await c.check({ ip: '81.2.69.160', email: 'anna.rossi@example.com', context: { action: 'login', user_id: user, session_id: 'gdpr-session-2' } });
    await c.issue({ challenge_type: 'email_otp', email: 'anna.rossi@example.com', request_id: blocked.body.request_id });
    await waitFor(() => rows<{ n: string }>("SELECT count() AS n FROM webhook_deliveries WHERE org_id = {org:String}", { org }), (r) => Number(r[0]!.n) >= 1);
    await waitFor(() => rows<{ n: string }>("SELECT count() AS n FROM webhook_messages WHERE org_id = {org:String}", { org }), (r) => Number(r[0]!.n) >= 1);
    await waitFor(async () => (await c.exportUser(user)).body.checks, (checks) => checks.length === 2);

    const exported = (await c.exportUser(user)).body;
    expect(exported.webhook_messages.length).toBeGreaterThanOrEqual(1);
    expect(exported.webhook_messages[0]).toMatchObject({ event: 'risk.high', payload: { user_id: user, session_id: 'gdpr-session' } });
    expect(exported.webhook_deliveries.length).toBeGreaterThanOrEqual(1);
    expect(await tablesNaming(user)).toEqual(expect.arrayContaining(['webhook_messages.payload', 'risk_checks.user_id']));

    const deleted = await c.deleteUser(user);
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted.webhook_deliveries).toBeGreaterThanOrEqual(1);
    expect(await tablesNaming(user)).toEqual([]);
    expect(await tablesNaming('gdpr-session')).toEqual([]);
    const after = (await c.exportUser(user)).body;
    expect(after).toMatchObject({ checks: [], webhook_messages: [], webhook_deliveries: [] });

    if (redis) {
      const digest = createHash('sha256').update(user).digest('hex').slice(0, 32);
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', `*${org}*`, 'COUNT', 1000);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      const naming = keys.map((k) => k.replace(/%3a/gi, ':')).filter((k) => k.includes(user) || k.includes(digest));
      // The tombstone alone remains: it holds the time of the delete, so records still in the topic are dropped.
      expect(naming.every((k) => k.includes(`gdpr:${digest}`)), naming.join(', ')).toBe(true);
    }
  });
});
