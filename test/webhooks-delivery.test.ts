import { createHmac, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { upsertWebhook, webhooksService } from '../services/webhooks.js';
import { startReceiver, type Receiver } from './fixtures/webhook-receiver.js';
import { runStarted, webhooksClient } from './fixtures/webhooks-client.js';
import { waitFor } from './fixtures/counters-http.js';
import { DLQ_REASON_HEADER, dlqTopic } from '../infra/bus/types.js';
import { fetchOpenApi, undocumentedRoutes } from './support/openapi.js';
import { WORKFLOW_EVENTS_TOPIC } from '../pipelines/webhooks/topics.js';

/**
 * The webhooks service end to end on embedded defaults, delivering to a real HTTP receiver on
 * 127.0.0.1 (private targets allowed, as tests and local trials set), with short retry, circuit
 * and disable periods.
 */

const BASE_MS = 50;
const OPEN_MS = 1_500;
let p: Awaited<ReturnType<typeof startTestProcess>>;
let rx: Receiver;
let c: ReturnType<typeof webhooksClient>;
let seq = 0;
const path = (name: string) => `/${name}-${++seq}`;

beforeAll(async () => {
  rx = await startReceiver();
  p = await startTestProcess({
    services: [webhooksService],
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_BASE_MS: String(BASE_MS),
      WEBHOOK_CIRCUIT_OPEN_MS: String(OPEN_MS),
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_DISABLE_AFTER_MS: '600000',
      API_KEYS: 'org_a:key_a,org_b:key_b,org_c:key_c,org_d:key_d,org_e:key_e',
      OTP_DEV_ECHO: 'true',
      BEARER_SIGNING_SECRET: 'test-bearer-signing-secret',
    },
  });
  c = webhooksClient(p.url, 'org_a', 'key_a');
});
afterAll(async () => {
  await p?.stop();
  await rx?.close();
});

const json = (b: Buffer) => JSON.parse(b.toString('utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function register(event: string, url: string, extra: Record<string, unknown> = {}) {
  const r = await c.register({ event, url, ...extra });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

describe('registration', () => {
  it('answers has_secret and never the secret; reads, changes and removes', async () => {
    const r = await c.register({ event: 'workflow.completed', url: rx.url('/reg'), secret: 'a-long-enough-secret' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ event: 'workflow_run_completed', url: rx.url('/reg'), enabled: true, has_secret: true, filter: null, auto_payload: null });
    expect(JSON.stringify(r.body)).not.toContain('a-long-enough-secret');
    expect(Object.keys(r.body)).toEqual(expect.arrayContaining(['id', 'event', 'url', 'filter', 'auto_payload', 'enabled', 'created_at', 'has_secret']));
    const got = await c.get(r.body.id);
    expect(got.body).toEqual(r.body);
    const patched = await c.patch(r.body.id, { secret: null, url: rx.url('/reg2') });
    expect(patched.body).toMatchObject({ has_secret: false, url: rx.url('/reg2') });
    expect((await c.remove(r.body.id)).status).toBe(204);
    expect((await c.get(r.body.id)).status).toBe(404);
  });

  it('refuses catch-all-only and unknown events, bad URLs, and other organizations', async () => {
    const cOnly = await c.register({ event: 'step.started', url: rx.url('/x') });
    expect(cOnly.status).toBe(400);
    expect(cOnly.body.message).toMatch(/event: step.started is delivered only to the catch-all address/);
    expect((await c.register({ event: 'nope', url: rx.url('/x') })).body.message).toMatch(/event: nope is not an event/);
    expect((await c.register({ event: 'document.deleted', url: 'ftp://x' })).body.message).toMatch(/^invalid registration: url:/);
    const id = await register('document.deleted', rx.url('/x'));
    const other = webhooksClient(p.url, 'org_b', 'key_b');
    expect((await other.get(id)).status).toBe(404);
    expect((await webhooksClient(p.url, 'org_b', 'key_a').get(id)).status).toBe(403);
  });
});

describe('delivery', () => {
  it('POSTs the envelope with the delivery id and a signature over the raw bytes', async () => {
    const at = path('signed');
    const secret = 'shh-this-is-secret';
    await register('workflow_run_started', rx.url(at), { secret });
    const res = await c.emit('workflow.started', runStarted('r1'));
    expect(res.status).toBe(202);
    const [id] = res.body.delivery_ids as string[];
    const [hit] = await waitFor(async () => rx.hits(at), (h) => h.length === 1);
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(hit!.headers['x-service-delivery-id']).toBe(id);
    expect(hit!.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', secret).update(hit!.body).digest('hex')}`);
    const envelope = json(hit!.body);
    expect(Object.keys(envelope).sort()).toEqual(['delivery_id', 'event', 'payload', 'timestamp']);
    expect(envelope).toMatchObject({ delivery_id: id, event: 'workflow_run_started', payload: runStarted('r1') });
    expect(envelope.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('takes a plain POST /events ahead of Express (a lane) with the same answer, Idempotency-Key included', async () => {
    const at = path('lane');
    await register('workflow_run_started', rx.url(at), { secret: 'a-long-enough-secret' });
    const body = JSON.stringify({ event: 'workflow_run_started', payload: runStarted('lane-1') });
    const post = (b: string | Buffer, extra: Record<string, string> = {}) =>
      fetch(`${p.url}/events`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-org-id': 'org_a', 'x-api-key': 'key_a', 'idempotency-key': `lane-${seq}`, ...extra }, body: b });
    // An unknown key is refused before the body is read (it is not even JSON).
    const refused = await post('{"event":', { 'x-api-key': 'no-such-key' });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'unauthorized' });
    // A compressed body is not the lane's plain case: Express answers it, through the same handler.
    const lane = await post(body);
    const express = await post(gzipSync(body), { 'content-encoding': 'gzip' });
    expect([lane.status, express.status]).toEqual([202, 202]);
    // Express decorates its answers (an ETag); the lane writes the JSON alone.
    expect([lane.headers.get('etag'), express.headers.get('etag')]).toEqual([null, expect.any(String)]);
    const ids = ((await lane.json()) as { delivery_ids: string[] }).delivery_ids;
    expect(await express.json()).toEqual({ delivery_ids: ids });
    const hits = await waitFor(async () => rx.hits(at), (h) => h.length >= 1);
    expect(ids).toContain(hits[0]!.headers['x-service-delivery-id']);
  });

  it('rejects a malformed event with the field that is wrong', async () => {
    const res = await c.emit('workflow_run_started', { run_id: 'r1' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/payload\.workflow_id/);
    expect((await c.emit('no_such_event', {})).body.message).toMatch(/event: "no_such_event" is not in the event catalogue/);
  });

  it('retries 5xx with backoff and the same delivery id, and logs every attempt', async () => {
    const at = path('retry');
    rx.reply(at, (n) => ({ status: n <= 2 ? 503 : 200 }));
    const id = await register('workflow_run_failed', rx.url(at));
    const [did] = (await c.emit('workflow.failed', { run_id: 'r2', workflow_id: 'w', reason: 'x', context: {} })).body.delivery_ids as string[];
    const hits = await waitFor(async () => rx.hits(at), (h) => h.length === 3);
    expect(new Set(hits.map((h) => h.headers['x-service-delivery-id']))).toEqual(new Set([did]));
    expect(new Set(hits.map((h) => h.body.toString()))).toHaveProperty('size', 1);
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(BASE_MS);
    expect(hits[2]!.at - hits[1]!.at).toBeGreaterThanOrEqual(2 * BASE_MS);
    const log = await waitFor(async () => (await c.deliveries(id)).body.data as Record<string, unknown>[], (d) => d.length === 3);
    expect(log.map((a) => [a.attempt, a.status, a.http_status])).toEqual([
      [3, 'succeeded', 200],
      [2, 'retrying', 503],
      [1, 'retrying', 503],
    ]);
    expect(log.every((a) => a.delivery_id === did)).toBe(true);
  });

  it('honors Retry-After', async () => {
    const at = path('retry-after');
    rx.reply(at, (n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    await register('workflow_run_failed', rx.url(at));
    await c.emit('workflow_run_failed', { run_id: 'r3', workflow_id: 'w', reason: 'x', context: {} });
    const hits = await waitFor(async () => rx.hits(at), (h) => h.length === 2);
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('does not retry another 4xx', async () => {
    const at = path('gone');
    rx.reply(at, () => ({ status: 410 }));
    const id = await register('workflow_run_cancelled', rx.url(at));
    await c.emit('workflow.cancelled', { run_id: 'r4', workflow_id: 'w', reason: 'x', actor: { type: 'user', id: 'u' } });
    const [final] = await waitFor(async () => (await c.deliveries(id)).body.data as Record<string, unknown>[], (d) => d.length === 1);
    expect(final).toMatchObject({ attempt: 1, status: 'failed', http_status: 410, next_attempt_at: null });
    expect(rx.hits(at)).toHaveLength(1);
  });

  it('gives up after 5 retries', async () => {
    const at = path('down');
    rx.reply(at, () => ({ status: 500 }));
    // Its own URL per attempt count would open the circuit; 6 attempts at one URL open it once (after 3).
    const id = await register('external_form_deleted', rx.url(at));
    await c.emit('external_form_deleted', { form_id: 'f', form_name: 'F', deleted_at: new Date().toISOString() });
    const log = await waitFor(async () => (await c.deliveries(id, '?status=failed')).body.data as Record<string, unknown>[], (d) => d.length === 1, 30_000);
    expect(log[0]).toMatchObject({ attempt: 6, status: 'failed', http_status: 500 });
    expect(rx.hits(at)).toHaveLength(6);
  });
});

describe('circuit per organization and URL', () => {
  it('opens after 3 failures, defers deliveries while open, and sends them all once it closes', async () => {
    const d = webhooksClient(p.url, 'org_d', 'key_d');
    const at = path('circuit');
    let up = false;
    rx.reply(at, () => ({ status: up ? 200 : 500 }));
    const id = (await d.register({ event: 'external_form_created', url: rx.url(at) })).body.id as string;
    const emit = async (i: number) => ((await d.emit('external_form_created', { form_id: `f${i}`, form_name: 'F', is_public: true, created_at: new Date().toISOString() })).body.delivery_ids as string[])[0]!;
    const ids = [await emit(1), await emit(2), await emit(3)];
    await waitFor(async () => rx.hits(at), (h) => h.length >= 3);
    ids.push(await emit(4), await emit(5));
    const deferred = await waitFor(async () => (await d.deliveries(id, '?status=deferred')).body.data as Record<string, string>[], (x) => x.length >= 2);
    up = true;
    const failures = rx.hits(at).length;
    const lastFailure = rx.hits(at).at(-1)!.at;
    // Without the circuit the five deliveries would have made 30 attempts in about 1.6 s (6 each,
    // backoff 50 ms doubling); with it, only the attempts before it opened (and any already in flight) got there.
    expect(failures).toBeLessThan(10);
    expect(deferred.every((x) => x.error === 'circuit open for this organization and URL' && x.next_attempt_at !== null)).toBe(true);
    const hits = await waitFor(async () => rx.hits(at).slice(failures), (h) => new Set(h.map((x) => x.headers['x-service-delivery-id'])).size === 5);
    expect(new Set(hits.map((h) => h.headers['x-service-delivery-id']))).toEqual(new Set(ids));
    expect(hits[0]!.at - lastFailure).toBeGreaterThanOrEqual(OPEN_MS - 100);
  });
});

describe('the workflow.events topic', () => {
  it('delivers valid messages and dead-letters malformed ones with the reason', async () => {
    const at = path('topic');
    await register('document.uploaded', rx.url(at));
    const dlq: { reason: string }[] = [];
    const sub = await p.platform.bus.subscribe({
      groupId: `dlq-reader-${Date.now()}`,
      topics: [dlqTopic(WORKFLOW_EVENTS_TOPIC)],
      fromBeginning: true,
      eachBatch: async (b) => void dlq.push(...b.messages.map((m) => ({ reason: m.headers?.[DLQ_REASON_HEADER] ?? '' }))),
    });
    const send = (v: unknown) => p.platform.bus.send(WORKFLOW_EVENTS_TOPIC, [{ key: 'org_a', value: Buffer.from(JSON.stringify(v)) }]);
    await send({ org_id: 'org_a', event: 'document.uploaded', payload: { document_id: 'd1', name: 'n', content_type: 'text/plain', size_bytes: 3 } });
    await send({ org_id: 'org_a', event: 'document.uploaded', payload: { document_id: 'd2' } });
    const [hit] = await waitFor(async () => rx.hits(at), (h) => h.length === 1);
    expect(json(hit!.body).payload.document_id).toBe('d1');
    await waitFor(async () => dlq, (d) => d.some((x) => x.reason.includes('payload.name')));
    await sub.stop();
  });
});

describe('the risk service\'s webhooks', () => {
  it('registers programmatically and delivers risk.high published to workflow.events, signed', async () => {
    const at = path('risk');
    const created = await upsertWebhook(p.platform, 'org_a', { event: 'risk.high', url: rx.url(at), secret: 'risk-signing-secret' });
    expect(created).toMatchObject({ event: 'risk.high', has_secret: true, enabled: true });
    const updated = await upsertWebhook(p.platform, 'org_a', { auto_payload: { source: 'risk' } }, created!.id);
    expect(updated?.auto_payload).toEqual({ source: 'risk' });
    const payload = { request_id: 'q1', entity_id: 'e1', score: 0.93, outcome: 'block', reasons: ['velocity'], session_id: 's1' };
    await p.platform.bus.send(WORKFLOW_EVENTS_TOPIC, [{ key: 'org_a', value: Buffer.from(JSON.stringify({ org_id: 'org_a', event: 'risk.high', payload })) }]);
    const [hit] = await waitFor(async () => rx.hits(at), (h) => h.length === 1);
    expect(json(hit!.body)).toMatchObject({ event: 'risk.high', payload: { ...payload, source: 'risk' } });
    expect(hit!.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', 'risk-signing-secret').update(hit!.body).digest('hex')}`);
    await expect(upsertWebhook(p.platform, 'org_a', { event: 'step.started', url: rx.url(at) })).rejects.toThrow(/catch-all/);
  });
});

describe('filters, auto_payload and the catch-all address', () => {
  it('applies filter tags and content_type to document events and merges auto_payload', async () => {
    const c = webhooksClient(p.url, 'org_c', 'key_c');
    const at = path('docs');
    const { body: { id } } = await c.register({ event: 'document.uploaded', url: rx.url(at), filter: { tags: ['kyc', 'aml'], content_type: 'application/pdf' }, auto_payload: { tenant: 't1', document_id: 'ignored' } });
    const doc = (tags: string[], content_type: string) => ({ document_id: 'd', name: 'n', content_type, size_bytes: 1, tags });
    const matched = await c.emit('document.uploaded', doc(['aml'], 'application/pdf'));
    const otherTag = await c.emit('document.uploaded', doc(['hr'], 'application/pdf'));
    const otherType = await c.emit('document.uploaded', doc(['kyc'], 'text/plain'));
    expect(matched.body.delivery_ids).toHaveLength(1);
    expect(otherTag.body.delivery_ids).toHaveLength(0);
    expect(otherType.body.delivery_ids).toHaveLength(0);
    const [hit] = await waitFor(async () => rx.hits(at), (h) => h.length === 1);
    expect(json(hit!.body).payload).toEqual({ ...doc(['aml'], 'application/pdf'), tenant: 't1' });
    expect(id).toMatch(/^wh_/);
  });

  it('ignores a filter on events that are not document events', async () => {
    const at = path('nodoc');
    await register('workflow_run_completed', rx.url(at), { filter: { tags: ['x'] } });
    expect((await c.emit('workflow_run_completed', { run_id: 'r', workflow_id: 'w', result: {} })).body.delivery_ids).toHaveLength(1);
  });

  it('sends every event, catch-all-only ones included, unsigned to the catch-all address', async () => {
    const other = webhooksClient(p.url, 'org_b', 'key_b');
    const at = path('catch-all');
    expect((await other.catchAll(rx.url(at))).body).toEqual({ key: 'webhook_url', value: rx.url(at) });
    await other.register({ event: 'workflow_run_started', url: rx.url(path('registered')), secret: 'registered-secret-1' });
    await other.emit('step.failed', { run_id: 'r', step_index: 2, error: { message: 'boom' } });
    await other.emit('workflow_run_started', runStarted('r9'));
    const hits = await waitFor(async () => rx.hits(at), (h) => h.length === 2);
    expect(hits.map((h) => json(h.body).event).sort()).toEqual(['step.failed', 'workflow_run_started']);
    for (const h of hits) expect(h.headers['x-service-signature']).toBeUndefined();
    const log = await waitFor(async () => (await other.deliveries('catch-all')).body.data as unknown[], (d) => d.length === 2);
    expect(log).toHaveLength(2);
    await other.catchAll(null);
  });
});

describe('Standard Webhooks, secret rotation and the catalogue', () => {
  const whsec = () => `whsec_${randomBytes(32).toString('base64')}`;
  const verifies = (secret: string, h: { body: Buffer; headers: Record<string, unknown> }) => {
    try {
      new Webhook(secret).verify(h.body.toString('utf8'), h.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  };

  it('signs with Standard Webhooks headers on request, and rotation signs with both secrets during the grace period', async () => {
    const at = path('standard');
    const [oldSecret, newSecret, third] = [whsec(), whsec(), whsec()];
    const id = await register('document.expired', rx.url(at), { secret: oldSecret, standard_webhooks: true });
    const emit = () => c.emit('document.expired', { document_id: 'd', name: 'n', expires_at: new Date().toISOString() });
    await emit();
    const [first] = await waitFor(async () => rx.hits(at), (h) => h.length === 1);
    expect(first!.headers['webhook-id']).toBe(first!.headers['x-service-delivery-id']);
    expect(verifies(oldSecret, first!)).toBe(true);
    expect(first!.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', oldSecret).update(first!.body).digest('hex')}`);

    const rotated = await c.call('POST', `/webhooks/${id}/rotate-secret`, { secret: newSecret, grace_period_seconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret_rotation_ends_at).not.toBeNull();
    expect(JSON.stringify(rotated.body)).not.toContain(newSecret.slice(6));
    await emit();
    const [, during] = await waitFor(async () => rx.hits(at), (h) => h.length === 2);
    expect([verifies(newSecret, during!), verifies(oldSecret, during!)]).toEqual([true, true]);

    await c.call('POST', `/webhooks/${id}/rotate-secret`, { secret: third, grace_period_seconds: 0 });
    await emit();
    const [, , after] = await waitFor(async () => rx.hits(at), (h) => h.length === 3);
    expect([verifies(third, after!), verifies(newSecret, after!)]).toEqual([true, false]);
  });

  it('refuses Standard Webhooks without a whsec_ secret', async () => {
    const r = await c.register({ event: 'document.expired', url: rx.url('/x'), secret: 'plain-but-long-secret', standard_webhooks: true });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/secret: with standard_webhooks, must be whsec_/);
  });

  it('lists the event types with their payload JSON schemas, without credentials', async () => {
    const res = await fetch(`${p.url}/webhooks/event-types`);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { name: string; kind: string; schema: { required?: string[] } }[] };
    expect(data.find((t) => t.name === 'risk.high')).toMatchObject({ kind: 'R', schema: { required: ['request_id', 'outcome', 'score', 'reasons'] } });
    expect(data.find((t) => t.name === 'step.started')?.kind).toBe('C');
  });

  it('documents every route in OpenAPI 3.0', async () => {
    const { doc } = await fetchOpenApi(`${p.url}/webhooks/openapi.json`);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/webhooks', '/webhooks/{id}', '/webhooks/{id}/deliveries', '/events', '/org-config', '/webhooks/event-types']));
    expect(await undocumentedRoutes(p.url, doc, {}, { 'x-api-key': 'key_a', 'x-org-id': 'org_a' })).toEqual([]);
  });
});

describe('approvals', () => {
  const e = () => webhooksClient(p.url, 'org_e', 'key_e');
  const requested = (run: string, step: string, role: string) => ({
    run_id: run,
    step_id: step,
    workflow_id: 'wf',
    comment: 'please check',
    request_payload: { approver_role: role, expires_at: new Date(Date.now() + 3_600_000).toISOString(), amount: 10 },
    status: 'pending',
  });

  it('records a requested approval; the backend decides it once and pbot_approval_decided is delivered', async () => {
    const c = e();
    const at = path('decided');
    await c.register({ event: 'pbot_approval_decided', url: rx.url(at) });
    const request = requested('run1', 'step1', 'cfo');
    await c.emit('pbot_approval_requested', request);
    const pending = await c.call('GET', '/approvals/run1');
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ run_id: 'run1', step_id: 'step1', approver_role: 'cfo', status: 'pending' });
    expect(pending.body.expires_at).toBe(request.request_payload.expires_at);

    const decision = await c.call('POST', '/approvals/run1/step1', { approved: true, comment: 'fine' });
    expect(decision.status).toBe(200);
    expect(decision.body).toMatchObject({ run_id: 'run1', step_id: 'step1', approval_id: pending.body.approval_id, approved: true, comment: 'fine' });
    const [hit] = await waitFor(async () => rx.hits(at), (h) => h.length === 1);
    expect(json(hit!.body)).toMatchObject({ event: 'pbot_approval_decided', payload: { run_id: 'run1', approved: true, comment: 'fine' } });
    expect((await c.call('GET', '/approvals/run1')).body.status).toBe('approved');
    const again = await c.call('POST', '/approvals/run1/step1', { approved: false });
    expect(again.status).toBe(409);
    expect((await c.call('POST', '/approvals/run1/nostep', { approved: false })).status).toBe(404);
    expect((await c.call('GET', '/approvals/nosuchrun')).status).toBe(404);
  });

  it('lets a signed-in SDK user holding the role decide, and no one else', async () => {
    const c = e();
    await c.emit('pbot_approval_requested', requested('run2', 'step1', 'legal'));
    const task = (await c.call('GET', '/approvals/run2')).body.approval_id as string;
    expect((await c.call('PUT', '/sdk/users', { email: 'Lee@Example.com', permissions: { approver_roles: ['legal'] } })).status).toBe(200);
    await c.call('PUT', '/sdk/users', { email: 'cfo@example.com', permissions: { approver_roles: ['cfo'] } });
    const signIn = async (email: string) => {
      const started = await fetch(`${p.url}/sdk/auth/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ org_id: 'org_e', email }) });
      expect(started.status).toBe(202);
      const { dev_code } = (await started.json()) as { dev_code: string };
      const verify = () => fetch(`${p.url}/sdk/auth/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ org_id: 'org_e', email, code: dev_code }) });
      const res = await verify();
      expect(res.status).toBe(200);
      expect((await verify()).status).toBe(401);
      return ((await res.json()) as { access_token: string }).access_token;
    };
    const decide = (token: string | null) =>
      fetch(`${p.url}/sdk/tasks/${task}/decide`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ approved: false, comment: 'no' }),
      });
    expect((await decide(null)).status).toBe(401);
    expect((await decide(await signIn('cfo@example.com'))).status).toBe(403);
    const ok = await decide(await signIn('lee@example.com'));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ approval_id: task, approved: false, comment: 'no' });
    expect((await c.call('GET', '/approvals/run2')).body.status).toBe('rejected');
    const unknown = await fetch(`${p.url}/sdk/auth/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ org_id: 'org_e', email: 'nobody@example.com' }) });
    expect(await unknown.json()).toEqual({ sent: true });
  });
});
