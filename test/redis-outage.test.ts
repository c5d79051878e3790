import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countersService } from '../services/counters.js';
import { startTestProcess } from './support/process.js';
import { hasRedisServer, startRedisServer } from './support/redis-server.js';
import { event, sampleConfigBody } from './fixtures/counters-config.js';

/** A process on a Redis of its own, which the test kills: requests that need Redis answer 503 at once. */
describe.runIf(hasRedisServer())('a Redis outage', () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  const headers = { 'content-type': 'application/json', 'x-org-id': 'org_a', 'x-api-key': 'key_a' };

  beforeAll(async () => {
    redis = await startRedisServer();
    p = await startTestProcess({ services: [countersService], env: { REDIS_URL: redis.url } });
  });
  afterAll(async () => {
    await redis?.kill();
    await p?.stop();
  });

  it('answers 503 with the service error body while Redis is down, instead of hanging', async () => {
    const put = await fetch(`${p.url}/v1/counters/org_a`, { method: 'PUT', headers, body: JSON.stringify(sampleConfigBody()) });
    expect(put.status).toBe(200);
    expect((await fetch(`${p.url}/v1/entities/org_a/user_1/realtime`, { headers })).status).toBe(200);

    await redis.kill();
    const live = await fetch(`${p.url}/v1/entities/org_a/user_1/realtime`, { headers });
    expect(live.status).toBe(503);
    expect(live.headers.get('retry-after')).toBe('1');
    const body = (await live.json()) as Record<string, unknown>;
    expect(body).toEqual({ status: 'error', error: 'service_unavailable', message: 'the window store is unreachable; retry shortly', request_id: expect.any(String) });
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|ioredis/i);

    const posted = await fetch(`${p.url}/v1/events/org_a`, { method: 'POST', headers, body: JSON.stringify(event()) });
    expect(posted.status).toBe(503);

    const health = await fetch(`${p.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'down', parts: { window_store: { status: 'down' }, bus: { status: 'up' } } });
  });

  it('answers 503 when Redis accepts the connection but never answers (the command timeout)', async () => {
    const hung = await startRedisServer();
    const q = await startTestProcess({ services: [countersService], env: { REDIS_URL: hung.url, REDIS_COMMAND_TIMEOUT_MS: '300' } });
    try {
      expect((await fetch(`${q.url}/v1/counters/org_a`, { method: 'PUT', headers, body: JSON.stringify(sampleConfigBody()) })).status).toBe(200);
      expect((await fetch(`${q.url}/v1/entities/org_a/user_1/realtime`, { headers })).status).toBe(200);
      hung.pause();
      const live = await fetch(`${q.url}/v1/entities/org_a/user_1/realtime`, { headers });
      expect(live.status).toBe(503);
      expect(await live.json()).toMatchObject({ error: 'service_unavailable' });
    } finally {
      await hung.kill();
      await q.stop();
    }
  });
});
