import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyRing } from '../api/http/auth.js';
import { presentError } from '../api/http/present-error.js';
import { requestWindows } from '../api/http/shared-windows.js';
import { planRateLimit } from '../api/screening/rate-limit.js';
import { manualClock } from '../infra/clock.js';
import { createMemoryWindowStore } from '../infra/windows/memory/index.js';
import type { WindowStore } from '../infra/windows/types.js';

const keys = new KeyRing([{ orgId: 'org_s', key: 'starter-key', plan: 'starter' }]);
const clock = manualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
});

/** One API process's screening limit: the plan limiter in front of an answer, on `store`. */
async function apiProcess(store: WindowStore): Promise<() => Promise<number>> {
  const app = express();
  app.use(planRateLimit(clock, (digest) => keys.verifyDigest(digest)?.plan ?? null, requestWindows({ store, scope: 'rate:screening' })));
  app.get('/', (_req, res) => void res.json({ ok: true }));
  app.use(presentError('standard'));
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(app).listen(0, () => resolve(s));
  });
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return async () => (await fetch(url, { headers: { 'x-api-key': 'starter-key' } })).status;
}

describe('screening plan limits across API processes', () => {
  it('holds a starter key to 10 requests per second over two processes sharing the window store', async () => {
    const store = await createMemoryWindowStore();
    const [a, b] = [await apiProcess(store), await apiProcess(store)];
    for (let i = 0; i < 10; i++) expect(await a()).toBe(200);
    // A shares its counts on its next request after the sync interval (answered 429 on its own).
    clock.advance(200);
    expect(await a()).toBe(429);
    // B, as a process that just started, reads the shared total on its first sync: within a few
    // requests of the same second it refuses too, where alone it would allow ten.
    const statuses: number[] = [];
    for (let i = 0; i < 5 && !statuses.includes(429); i++) {
      clock.advance(100);
      statuses.push(await b());
    }
    expect(statuses).toContain(429);
    clock.advance(1000);
    expect(await b()).toBe(200);
    await store.close();
  });
});
