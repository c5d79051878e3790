import type { AddressInfo } from 'node:net';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { buildEdge } from '../api/app.js';
import { KeyRing, authenticate, requireOrg } from '../api/http/auth.js';
import type { LaneRoute } from '../api/http/lane.js';
import { serviceRouter } from '../api/http/service-router.js';
import { parseOr400 } from '../api/http/validate.js';
import { manualClock } from '../infra/clock.js';

const thing = z.object({ name: z.string().min(1) });

/** One handler behind both adapters of `POST /rules/:orgId`; `via` tells which one answered. */
async function answerRule(orgId: string, body: unknown, via: string): Promise<string> {
  const { name } = parseOr400(thing, body);
  if (name === 'boom') throw new Error('secret internals at /srv/lane.ts:7');
  return JSON.stringify({ success: true, data: { orgId, name, via } });
}

function exampleLane(): LaneRoute {
  return {
    method: 'POST',
    path: '/rules/:orgId',
    org: { param: 'orgId' },
    style: 'rule-engine',
    bodyLimit: '1kb',
    handle: async (req) => ({ status: 201, json: await answerRule(req.params.orgId!, req.body, 'lane') }),
  };
}

/** A small service that exercises every piece of the edge the real services share. */
function exampleRouters(keys: KeyRing) {
  const standard = serviceRouter({ style: 'standard', bodyLimit: '1kb', prefixes: ['/v1/things'], keys }, (r) => {
    r.post('/v1/things/:org_id', authenticate(keys), requireOrg({ header: 'x-org-id', param: 'org_id' }), (req, res) => {
      const body = parseOr400(z.object({ name: z.string().min(1), size: z.number().int() }), req.body);
      res.status(201).json({ status: 'ok', data: body });
    });
    r.get('/v1/things/boom', () => {
      throw new Error('secret internals at /srv/app.ts:12');
    });
  });
  const ruleStyle = serviceRouter({ style: 'rule-engine', bodyLimit: '1kb', prefixes: ['/rules'], keys }, (r) => {
    r.post('/rules/:orgId', authenticate(keys), requireOrg({ param: 'orgId' }), async (req, res) => {
      res.status(201).type('json').send(await answerRule(String(req.params.orgId), req.body, 'express'));
    });
  });
  return [standard, ruleStyle];
}

let server: Server;
/** The rate limit's clock: each limit test starts at a fresh minute. */
const clock = manualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
const nextMinute = () => clock.advance(60_000);
let base: string;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const keys = new KeyRing([
    { orgId: 'org_a', key: 'key_a', plan: 'enterprise' },
    { orgId: 'org_b', key: 'key_b', plan: 'starter' },
    { orgId: 'org_c', key: 'key_c', plan: 'starter' },
    { orgId: 'org_d', key: 'key_d', plan: 'starter' },
    { orgId: 'org_e', key: 'key_e', plan: 'starter', rate: { limit: 5, windowMs: 1000 } },
  ]);
  const log = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
  const edge = buildEdge({
    log,
    metrics: new Registry(),
    routers: exampleRouters(keys),
    lanes: [exampleLane()],
    keys,
    rateLimit: { perKeyPerMinute: 40, perAddressPerMinute: 30 },
    clock,
    isReady: () => true,
  });
  server = await new Promise<Server>((resolve) => {
    const s = createServer(edge).listen(0, () => resolve(s));
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

  it('answers a body that does not decode with its content-encoding with a 400', async () => {
    for (const [encoding, body] of [['deflate', ''], ['gzip', 'not gzip'], ['br', '{}']]) {
      const res = await fetch(`${base}/v1/things/org_a`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-encoding': encoding!, ...asA } });
      expect(res.status, encoding).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'malformed_body', message: expect.stringMatching(/could not be decoded with its content-encoding/) });
    }
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

  it('limits requests per key, with 429 from exactly the request after the limit', async () => {
    nextMinute();
    const asD = { 'x-api-key': 'key_d' };
    for (let i = 1; i <= 40; i++) {
      const res = await fetch(`${base}/nowhere`, { headers: asD });
      expect(res.status, `request ${i}`).toBe(404);
      expect(res.headers.get('ratelimit')).toBe(`limit=40, remaining=${40 - i}, reset=60`);
    }
    const limited = await fetch(`${base}/nowhere`, { headers: asD });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit-policy')).toBe('40;w=60');
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(((await limited.json()) as { error: string }).error).toBe('rate_limited');
    nextMinute();
    expect((await fetch(`${base}/nowhere`, { headers: asD })).status).toBe(404);
  });

  it('counts a key against its own rate when API_KEYS gives it one', async () => {
    nextMinute();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${base}/nowhere`, { headers: { 'x-api-key': 'key_e' } })).status);
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429]);
    clock.advance(1000);
    const res = await fetch(`${base}/nowhere`, { headers: { 'x-api-key': 'key_e' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('ratelimit-policy')).toBe('5;w=1');
  });

  it('counts unknown keys by address: a fresh random key per request earns nothing', async () => {
    nextMinute();
    for (let i = 1; i <= 30; i++) {
      const res = await post('/v1/things/org_a', '{}', { 'x-org-id': 'org_a', 'x-api-key': `random-${i}-${Math.random()}` });
      expect(res.status, `request ${i}`).toBe(401);
    }
    const lane = await post('/rules/org_a', '{}', { 'x-api-key': `random-${Math.random()}` });
    expect(lane.status).toBe(429);
    const express = await fetch(`${base}/nowhere`, { headers: { 'x-api-key': `random-${Math.random()}` } });
    expect(express.status).toBe(429);
    // A known key is counted on its own, whatever its address did.
    expect((await fetch(`${base}/nowhere`, { headers: { 'x-api-key': 'key_d' } })).status).toBe(404);
    nextMinute();
  });

  it.each([
    ['Express', '/v1/things/org_a'],
    ['the lane', '/rules/org_a'],
  ])('refuses an unknown key in %s before reading the body', async (_via, path) => {
    nextMinute();
    // Malformed JSON would be a 400 had the body been parsed first.
    expect((await post(path, '{oops', { 'x-org-id': 'org_a', 'x-api-key': 'unknown' })).status).toBe(401);
    // A body announced and never sent: the answer cannot wait for it.
    const { port } = server.address() as AddressInfo;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '900', 'x-org-id': 'org_a', 'x-api-key': 'unknown' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(401);
  });
});

describe('a lane', () => {
  const rule = (body: string, headers: Record<string, string> = {}, path = '/rules/org_a') => post(path, body, { 'x-api-key': 'key_a', ...headers });

  it('answers the plain case of its route itself', async () => {
    const res = await rule(JSON.stringify({ name: 'n' }));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ success: true, data: { orgId: 'org_a', name: 'n', via: 'lane' } });
  });

  it('declines what is not plain to the same route in Express', async () => {
    const zipped = await fetch(`${base}/rules/org_a`, { method: 'POST', body: gzipSync(JSON.stringify({ name: 'z' })), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-api-key': 'key_a' } });
    expect(await zipped.json()).toMatchObject({ data: { name: 'z', via: 'express' } });
    const vendorType = await rule(JSON.stringify({ name: 'v' }), { 'content-type': 'application/vnd.api+json' });
    expect(await vendorType.json()).toMatchObject({ data: { via: 'express' } });
    const escaped = await rule(JSON.stringify({ name: 'e' }), {}, '/rules/org%5Fa');
    expect(await escaped.json()).toMatchObject({ data: { orgId: 'org_a', via: 'express' } });
    expect((await post('/rules/org_a', JSON.stringify({ name: 'n' }))).status).toBe(401);
  });

  it('answers every error as Express would, in the route style', async () => {
    const malformed = await rule('{oops');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ statusCode: 400, code: 400, error: 'malformed_json', message: expect.stringMatching(/not valid JSON/) });
    const invalid = await rule(JSON.stringify({ name: '' }));
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { message: string }).message).toMatch(/name:/);
    expect((await rule(JSON.stringify({ name: 'x'.repeat(2000) }))).status).toBe(413);
    expect((await rule('{}', { 'x-api-key': 'nope' })).status).toBe(401);
    expect((await rule('{}', {}, '/rules/org_b')).status).toBe(403);
    const failed = await rule(JSON.stringify({ name: 'boom' }), { 'x-request-id': 'lane-500' });
    expect(failed.status).toBe(500);
    const text = await failed.text();
    expect(text).not.toContain('secret internals');
    expect(JSON.parse(text)).toMatchObject({ statusCode: 500, error: 'internal_error' });
  });

  it('logs, echoes the request id and counts latency under the route pattern', async () => {
    logLines.length = 0;
    const res = await rule(JSON.stringify({ name: 'n' }), { 'x-request-id': 'lane-1' });
    expect(res.headers.get('x-request-id')).toBe('lane-1');
    await new Promise((r) => setTimeout(r, 20));
    expect(logLines).toContainEqual(expect.objectContaining({ reqId: 'lane-1', status: 201, method: 'POST', url: '/rules/org_a' }));
    expect(JSON.stringify(logLines)).not.toContain('key_a');
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/weir_http_request_duration_seconds_count\{method="POST",route="\/rules\/:orgId",status="201"\} \d+/);
  });

  it('shares the edge rate limit with Express', async () => {
    nextMinute();
    const asC = { 'x-api-key': 'key_c' };
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await (i % 2 ? post('/rules/org_c', '{"name":"c"}', asC) : fetch(`${base}/nowhere`, { headers: asC }))).status);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const limited = await post('/rules/org_c', '{"name":"c"}', asC);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.json()).toMatchObject({ error: 'rate_limited' });
  });
});
