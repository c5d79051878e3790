import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { buildApp } from '../api/app.js';
import { KeyRing, authenticate, requireOrg } from '../api/http/auth.js';
import { serviceRouter } from '../api/http/service-router.js';
import { parseOr400 } from '../api/http/validate.js';

/** A small service that exercises every piece of the edge the real services share. */
function exampleRouters(keys: KeyRing) {
  const standard = serviceRouter({ style: 'standard', bodyLimit: '1kb', prefixes: ['/v1/things'] }, (r) => {
    r.post('/v1/things/:org_id', authenticate(keys), requireOrg({ header: 'x-org-id', param: 'org_id' }), (req, res) => {
      const body = parseOr400(z.object({ name: z.string().min(1), size: z.number().int() }), req.body);
      res.status(201).json({ status: 'ok', data: body });
    });
    r.get('/v1/things/boom', () => {
      throw new Error('secret internals at /srv/app.ts:12');
    });
  });
  const ruleStyle = serviceRouter({ style: 'rule-engine', bodyLimit: '1kb', prefixes: ['/rules'] }, (r) => {
    r.post('/rules/:orgId', authenticate(keys), requireOrg({ param: 'orgId' }), (req, res) => {
      parseOr400(z.object({ name: z.string() }), req.body);
      res.status(201).json({ success: true, data: {} });
    });
  });
  return [standard, ruleStyle];
}

let server: Server;
let base: string;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const keys = new KeyRing([
    { orgId: 'org_a', key: 'key_a', plan: 'enterprise' },
    { orgId: 'org_b', key: 'key_b', plan: 'starter' },
  ]);
  const log = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
  const app = buildApp({ log, metrics: new Registry(), routers: exampleRouters(keys), rateLimitPerMinute: 40, isReady: () => true });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(base + path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
const asA = { 'x-api-key': 'key_a', 'x-org-id': 'org_a' };

describe('the edge', () => {
  it('answers /health with status and timestamp', async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.status).toBe('ok');
    expect(Date.parse(String(body.timestamp))).not.toBeNaN();
  });

  it('serves Prometheus metrics including request latency', async () => {
    await fetch(`${base}/health`);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain('weir_http_request_duration_seconds_bucket');
  });

  it('gives every response a request id, echoing a sent one', async () => {
    const res = await fetch(`${base}/health`, { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
  });

  it('logs one line per request with its id and status, and never a credential', async () => {
    logLines.length = 0;
    await post('/v1/things/org_a', JSON.stringify({ name: 'n', size: 2 }), { ...asA, 'x-request-id': 'logged-1' });
    expect((await fetch(`${base}/v1/things/boom`, { headers: { 'x-request-id': 'logged-2', 'x-api-key': 'key_a' } })).status).toBe(500);
    await new Promise((r) => setTimeout(r, 20)); // 'finish' fires after the answer
    expect(logLines).toContainEqual(expect.objectContaining({ reqId: 'logged-1', level: 20, status: 201, method: 'POST', url: '/v1/things/org_a' }));
    expect(logLines).toContainEqual(expect.objectContaining({ reqId: 'logged-2', level: 50, msg: 'request failed', err: expect.objectContaining({ message: expect.stringContaining('secret internals') }) }));
    expect(logLines).toContainEqual(expect.objectContaining({ reqId: 'logged-2', level: 50, status: 500 }));
    expect(JSON.stringify(logLines)).not.toContain('key_a');
  });

  it('accepts a valid body', async () => {
    const res = await post('/v1/things/org_a', JSON.stringify({ name: 'n', size: 2 }), asA);
    expect(res.status).toBe(201);
  });

  it('answers malformed JSON with a 400 that says so, in the service style', async () => {
    const res = await post('/v1/things/org_a', '{"name": ', asA);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'error', error: 'malformed_json' });
    expect(body.message).toMatch(/not valid JSON/);
  });

  it('answers malformed JSON in the rule-engine error body on rule-engine paths', async () => {
    const res = await post('/rules/org_a', '{oops', { 'x-api-key': 'key_a' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ statusCode: 400, code: 400 });
    expect(Date.parse(String(body.timestamp))).not.toBeNaN();
  });

  it('answers an oversized body with 413', async () => {
    const res = await post('/v1/things/org_a', JSON.stringify({ name: 'x'.repeat(5000), size: 1 }), asA);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe('payload_too_large');
  });

  it('names each invalid field and where it is', async () => {
    const res = await post('/v1/things/org_a', JSON.stringify({ name: '', size: 1.5 }), asA);
    expect(res.status).toBe(400);
    const { message } = (await res.json()) as { message: string };
    expect(message).toMatch(/name:/);
    expect(message).toMatch(/size:/);
  });

  it('answers 401 without a key or with an unknown key, 403 for another org', async () => {
    expect((await post('/v1/things/org_a', '{}', { 'x-org-id': 'org_a' })).status).toBe(401);
    expect((await post('/v1/things/org_a', '{}', { 'x-org-id': 'org_a', 'x-api-key': 'nope' })).status).toBe(401);
    expect((await post('/v1/things/org_a', '{}', { 'x-org-id': 'org_b', 'x-api-key': 'key_b' })).status).toBe(403);
    expect((await post('/v1/things/org_a', '{}', { 'x-org-id': 'org_a', 'x-api-key': 'key_b' })).status).toBe(403);
    expect((await post('/rules/org_b', '{}', { 'x-api-key': 'key_a' })).status).toBe(403);
  });

  it('never sends a stack trace or internals on a 500', async () => {
    const res = await fetch(`${base}/v1/things/boom`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('secret internals');
    expect(text).not.toContain('.ts:');
    expect(JSON.parse(text)).toMatchObject({ error: 'internal_error' });
  });

  it('answers unknown routes with a 404 body', async () => {
    const res = await fetch(`${base}/nowhere`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });

  it('limits requests per key with 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push((await fetch(`${base}/nowhere`, { headers: { 'x-api-key': 'burst' } })).status);
    expect(statuses).toContain(429);
    const limited = await fetch(`${base}/nowhere`, { headers: { 'x-api-key': 'burst' } });
    expect(((await limited.json()) as { error: string }).error).toBe('rate_limited');
  });
});
