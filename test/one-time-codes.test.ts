import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireAddress, shouldRun } from './support/infra.js';
import { startTestProcess } from './support/process.js';
import { riskService } from '../services/risk.js';
import { webhooksService } from '../services/webhooks.js';
import { riskClient } from './fixtures/risk-http.js';
import { waitFor } from './fixtures/counters-http.js';
import { countAttempt } from '../pipelines/one-time-codes.js';
import { MAX_ATTEMPTS } from '../domain/one-time-codes.js';

/**
 * Every one-time code (SDK approver sign-in, risk step-up challenges) on the embedded store and on
 * a real Redis: one live code per user, at most 5 answers per code even when they arrive in
 * parallel, limits on starts, and the same answer for unknown and known users.
 */
const backends: [string, 'redisUrl' | null][] = [['the embedded store', null], ['Redis', 'redisUrl']];

for (const [name, what] of backends) describe.runIf(what === null || shouldRun(what))(`one-time codes on ${name}`, () => {
  const org = `otp${process.pid}${Date.now().toString(36)}${what ? 'r' : 'e'}`;
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  let seq = 0;
  const email = () => `approver${++seq}@example.com`;

  beforeAll(async () => {
    p = await startTestProcess({
      services: [riskService(), webhooksService],
      env: {
        ...(what ? { REDIS_URL: requireAddress(what) } : {}),
        API_KEYS: `${org}:key`,
        RISK_LISTS_DIR: path.join(import.meta.dirname, 'fixtures', 'risk-lists'),
        OTP_DEV_ECHO: 'true',
        BEARER_SIGNING_SECRET: 'test-bearer-signing-secret',
      },
    });
  });
  afterAll(async () => {
    await p?.stop();
  });

  const post = async (route: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${p.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const addUser = (address: string) =>
    fetch(`${p.url}/sdk/users`, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-org-id': org, 'x-api-key': 'key' }, body: JSON.stringify({ email: address, permissions: { approver_roles: ['cfo'] } }) });
  const start = (address: string) => post('/sdk/auth/start', { org_id: org, email: address });
  const verify = (address: string, code: string) => post('/sdk/auth/verify', { org_id: org, email: address, code });
  const wrongFor = (code: string) => (code === '000000' ? '000001' : '000000');

  it('counts parallel attempts atomically: of 20 at once, at most 5 are within the limit, and every one is counted', async () => {
    const entity = { scope: org, id: `parallel-${seq++}` };
    const counts = await Promise.all(Array.from({ length: 20 }, () => countAttempt(p.platform.windows, entity)));
    expect(counts.filter((n) => n <= MAX_ATTEMPTS).length).toBeLessThanOrEqual(MAX_ATTEMPTS);
    expect(Math.max(...counts)).toBe(20);
    expect(await countAttempt(p.platform.windows, entity)).toBe(21);
  });

  it('SDK sign-in: a new start replaces the old code; a right code after parallel wrong guesses is refused', async () => {
    const address = email();
    expect((await addUser(address)).status).toBe(200);
    const first = (await start(address)).body.dev_code as string;
    const second = (await start(address)).body.dev_code as string;
    if (first !== second) expect((await verify(address, first)).status).toBe(401);
    const guesses = await Promise.all(Array.from({ length: 10 }, () => verify(address, wrongFor(second))));
    expect(guesses.map((g) => g.status)).toEqual(Array(10).fill(401));
    expect((await verify(address, second)).status).toBe(401);

    const third = (await start(address)).body.dev_code as string;
    const ok = await verify(address, third);
    expect(ok.status).toBe(200);
    expect(ok.body.user).toMatchObject({ email: address });
    expect((await verify(address, third)).status).toBe(401);
  });

  it('SDK sign-in: starts are limited per email, unknown and known alike, with the same answers', async () => {
    const known = email();
    await addUser(known);
    const unknown = email();
    const answers = async (address: string) => {
      const out = [];
      for (let i = 0; i < 6; i++) {
        const r = await start(address);
        out.push({ status: r.status, sent: r.body.sent, limit: r.body.limit });
      }
      return out;
    };
    const expected = [...Array(5).fill({ status: 202, sent: true, limit: undefined }), { status: 429, sent: undefined, limit: 'per_user' }];
    expect(await answers(known)).toEqual(expected);
    expect(await answers(unknown)).toEqual(expected);
  });

  it('SDK sign-in: starts are limited per client address across emails', async () => {
    const statuses = [];
    for (let i = 0; i < 21; i++) statuses.push((await post('/sdk/auth/start', { org_id: `${org}addr`, email: email() }, {})).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(202));
    expect(statuses[20]).toBe(429);
  });

  it('challenges: only the latest works, at most 5 of 12 parallel answers are compared and the rest told none are left, errors say why', async () => {
    const c = riskClient(p.url, org, 'key');
    const user = `u${seq++}`;
    const { body: check } = await c.check({ email: 'anna.rossi@example.com', context: { action: 'login', user_id: user } });
    // Its user counts for the limit once the pipeline has written the check.
    await waitFor(async () => (await c.exportUser(user)).body.checks, (checks) => checks.length === 1);
    const issue = () => c.issue({ challenge_type: 'email_otp', email: 'anna.rossi@example.com', request_id: check.request_id });
    const old = (await issue()).body;
    const live = (await issue()).body;
    expect((await c.verify({ challenge_id: old.challenge_id, code: old.dev_code })).body).toMatchObject({ verified: false, error: 'invalid_code', reason: 'replaced', message: expect.any(String) });
    const wrong = wrongFor(live.dev_code);
    const answers = await Promise.all(Array.from({ length: 12 }, () => c.verify({ challenge_id: live.challenge_id, code: wrong })));
    const reasons = answers.map((a) => a.body.reason as string);
    expect(reasons.filter((r) => r === 'mismatch').length).toBeLessThanOrEqual(MAX_ATTEMPTS);
    expect(reasons.filter((r) => r !== 'mismatch')).toEqual(Array(12 - reasons.filter((r) => r === 'mismatch').length).fill('exhausted'));
    expect((await c.verify({ challenge_id: live.challenge_id, code: live.dev_code })).body).toMatchObject({ verified: false, reason: 'exhausted', message: expect.stringMatching(/no attempts left/) });
    expect((await c.verify({ challenge_id: 'no-such-challenge', code: '123456' })).body).toMatchObject({ verified: false, error: 'invalid_code', reason: 'unknown' });

    for (let i = 2; i < 5; i++) expect((await issue()).status).toBe(201);
    const limited = await issue();
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'rate_limited', limit: 'per_user' });
  });
});
