import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { riskService } from '../services/risk.js';
import { syncRiskWebhooks, webhooksService } from '../services/webhooks.js';
import { riskClient } from './fixtures/risk-http.js';
import { startReceiver, type Hit, type Receiver } from './fixtures/webhook-receiver.js';
import { webhooksClient } from './fixtures/webhooks-client.js';
import { waitFor } from './fixtures/counters-http.js';
import { fetchOpenApi } from './support/openapi.js';
import { DLQ_REASON_HEADER, dlqTopic } from '../infra/bus/types.js';
import { WORKFLOW_EVENTS_TOPIC } from '../pipelines/webhooks/topics.js';

/**
 * Bounds and tenant isolation of the workflow webhooks, end to end on embedded defaults: large
 * payloads through retries and deferrals, the fan-out limits, circuits per organization and URL,
 * circuits read, reset and bypassed over the API, secrets integrators choose, registrations listed
 * and sent back as read.
 */

const OPEN_MS = 2_000;
const PAYLOAD_LIMIT = 1_100_000;
let p: Awaited<ReturnType<typeof startTestProcess>>;
let rx: Receiver;
let seq = 0;
const route = (name: string) => `/${name}-${++seq}`;
const idOf = (h: Hit) => String(h.headers['x-service-delivery-id']);
const envelopeOf = (h: Hit) => JSON.parse(h.body.toString('utf8')) as { payload: Record<string, unknown> };
const form = (id: string, extra: Record<string, unknown> = {}) => ({ form_id: id, form_name: 'F', is_public: true, created_at: '2026-01-01T00:00:00.000Z', ...extra });

beforeAll(async () => {
  rx = await startReceiver();
  p = await startTestProcess({
    services: [riskService({ onWebhookConfig: syncRiskWebhooks }), webhooksService],
    env: {
      API_KEYS: 'org_a:key_a,org_b:key_b,org_q:key_q,org_l:key_l,org_s:key_s',
      RISK_LISTS_DIR: path.join(import.meta.dirname, 'fixtures', 'risk-lists'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_CIRCUIT_OPEN_MS: String(OPEN_MS),
      WEBHOOK_TIMEOUT_MS: '5000',
      BODY_LIMIT: '3mb',
      WEBHOOK_EVENT_PAYLOAD_LIMIT_BYTES: String(PAYLOAD_LIMIT),
      WEBHOOK_REGISTRATIONS_PER_ORG: '6',
      WEBHOOK_AUTO_PAYLOAD_LIMIT_BYTES: '1024',
    },
  });
}, 60_000);
afterAll(async () => {
  await p?.stop();
  await rx?.close();
});

describe('retries of large payloads', () => {
  it('retries a 1 MB payload 5 times through retries and circuit deferrals; every attempt is in the delivery log', async () => {
    const c = webhooksClient(p.url, 'org_s', 'key_s');
    const at = route('big');
    rx.reply(at, (n) => ({ status: n <= 5 ? 500 : 200 }));
    const id = (await c.register({ event: 'external_form_created', url: rx.url(at) })).body.id as string;
    const blob = 'x'.repeat(1_048_576);
    const emitted = await c.emit('external_form_created', form('big', { blob }));
    expect(emitted.status).toBe(202);
    const [deliveryId] = emitted.body.delivery_ids as string[];
    const hits = await waitFor(async () => rx.hits(at), (h) => h.length === 6, 60_000);
    expect(hits.every((h) => idOf(h) === deliveryId && envelopeOf(h).payload.blob === blob)).toBe(true);
    const log = await waitFor(
      async () => (await c.deliveries(id, '?limit=500')).body.data as { attempt: number; status: string }[],
      (d) => d.some((a) => a.status === 'succeeded'),
    );
    const sent = log.filter((a) => a.status !== 'deferred').sort((a, b) => a.attempt - b.attempt);
    expect(sent.map((a) => [a.attempt, a.status])).toEqual([
      [1, 'retrying'],
      [2, 'retrying'],
      [3, 'retrying'],
      [4, 'retrying'],
      [5, 'retrying'],
      [6, 'succeeded'],
    ]);
    // Three failures opened the circuit: later attempts waited in the schedule as deferrals, 1 MB each.
    expect(log.some((a) => a.status === 'deferred')).toBe(true);
  }, 90_000);
});

describe('fan-out bounds', () => {
  it('refuses an event payload over WEBHOOK_EVENT_PAYLOAD_LIMIT_BYTES with a 400 naming it', async () => {
    const c = webhooksClient(p.url, 'org_q', 'key_q');
    const r = await c.emit('external_form_created', form('huge', { blob: 'y'.repeat(PAYLOAD_LIMIT) }));
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^invalid event: payload: payload is \d+ bytes as JSON, over the limit of 1100000 bytes \(WEBHOOK_EVENT_PAYLOAD_LIMIT_BYTES\)$/);
  });

  it('dead-letters a workflow.events message whose payload is over the limit, naming it', async () => {
    const reasons: string[] = [];
    const sub = await p.platform.bus.subscribe({
      groupId: `dlq-bounds-${Date.now()}`,
      topics: [dlqTopic(WORKFLOW_EVENTS_TOPIC)],
      fromBeginning: true,
      eachBatch: async (batch) => void reasons.push(...batch.messages.map((m) => m.headers?.[DLQ_REASON_HEADER] ?? '')),
    });
    try {
      const message = { org_id: 'org_q', event: 'external_form_created', payload: form('huge-topic', { blob: 'y'.repeat(PAYLOAD_LIMIT) }) };
      await p.platform.bus.send(WORKFLOW_EVENTS_TOPIC, [{ key: 'org_q', value: Buffer.from(JSON.stringify(message)) }]);
      await waitFor(async () => reasons, (r) => r.some((x) => /payload.*over the limit of 1100000 bytes \(WEBHOOK_EVENT_PAYLOAD_LIMIT_BYTES\)/.test(x)));
    } finally {
      await sub.stop();
    }
  });

  it('refuses an auto_payload over WEBHOOK_AUTO_PAYLOAD_LIMIT_BYTES on create and change', async () => {
    const c = webhooksClient(p.url, 'org_q', 'key_q');
    const big = { note: 'z'.repeat(2_000) };
    const created = await c.register({ event: 'external_form_created', url: rx.url('/q'), auto_payload: big });
    expect(created.status).toBe(400);
    expect(created.body.message).toMatch(/^invalid registration: auto_payload: .*over the limit of 1024 bytes \(WEBHOOK_AUTO_PAYLOAD_LIMIT_BYTES\)$/);
    const ok = await c.register({ event: 'external_form_created', url: rx.url('/q'), auto_payload: { note: 'small' } });
    expect(ok.status).toBe(201);
    const patched = await c.patch(ok.body.id as string, { auto_payload: big });
    expect(patched.status).toBe(400);
    expect(patched.body.message).toMatch(/WEBHOOK_AUTO_PAYLOAD_LIMIT_BYTES/);
    expect((await c.remove(ok.body.id as string)).status).toBe(204);
  });

  it('refuses a registration past WEBHOOK_REGISTRATIONS_PER_ORG with a 400 naming it', async () => {
    const c = webhooksClient(p.url, 'org_q', 'key_q');
    for (let i = 0; i < 6; i++) expect((await c.register({ event: 'external_form_created', url: rx.url(`/q${i}`) })).status).toBe(201);
    const over = await c.register({ event: 'external_form_created', url: rx.url('/q7') });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error: 'quota_exceeded', message: 'quota exceeded: an organization may have at most 6 webhook registrations (WEBHOOK_REGISTRATIONS_PER_ORG)' });
    // Another organization is not affected.
    const other = webhooksClient(p.url, 'org_b', 'key_b');
    const created = await other.register({ event: 'external_form_created', url: rx.url('/b') });
    expect(created.status).toBe(201);
    expect((await other.remove(created.body.id as string)).status).toBe(204);
  });
});

describe('circuits per organization and URL', () => {
  const a = () => webhooksClient(p.url, 'org_a', 'key_a');
  const b = () => webhooksClient(p.url, 'org_b', 'key_b');

  /**
   * A receiver path of its own for org_a (and org_b when asked): it refuses org_a's deliveries
   * while `refusing` is set, with a 500 (retried) or with a 400 (final) when the form id says so.
   */
  async function target(withB = false) {
    const at = route('shared');
    const s = { refusing: true, idA: '', idB: '', url: rx.url(at) };
    rx.reply(at, (_n, hit) => {
      const formId = String(envelopeOf(hit).payload.form_id);
      if (!s.refusing || !formId.startsWith('a-')) return { status: 200 };
      return { status: formId.startsWith('a-final-') ? 400 : 500 };
    });
    s.idA = (await a().register({ event: 'external_form_created', url: s.url })).body.id as string;
    if (withB) s.idB = (await b().register({ event: 'external_form_created', url: s.url })).body.id as string;
    return s;
  }

  /** Three failures of org_a open its circuit for the URL. */
  const openA = async (s: { idA: string }, prefix = 'a-') => {
    seq++;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(...((await a().emit('external_form_created', form(`${prefix}${seq}-${i}`))).body.delivery_ids as string[]));
    await waitFor(async () => (await a().call('GET', `/webhooks/${s.idA}/circuit`)).body, (c) => c.state === 'open');
    return ids;
  };
  const statusesOf = async (client: ReturnType<typeof a>, id: string, delivery: string) =>
    waitFor(async () => (await client.deliveries(id, `?delivery_id=${delivery}`)).body.data as { status: string; attempt: number }[], (d) => d.some((x) => x.status === 'succeeded'));
  const cleanUp = async (s: { idA: string; idB: string }) => {
    expect((await a().remove(s.idA)).status).toBe(204);
    if (s.idB) expect((await b().remove(s.idB)).status).toBe(204);
  };

  it("org A's failures to a URL open A's circuit only: B's deliveries to the same URL go out at once", async () => {
    const s = await target(true);
    seq++;
    for (let i = 0; i < 4; i++) await a().emit('external_form_created', form(`a-${seq}-${i}`));
    // A deferral in A's log shows its circuit open.
    await waitFor(async () => (await a().deliveries(s.idA, '?status=deferred')).body.data as unknown[], (d) => d.length > 0);
    const circuit = (await a().call('GET', `/webhooks/${s.idA}/circuit`)).body;
    expect(circuit).toMatchObject({ url: s.url, state: 'open' });
    expect(circuit.consecutive_failures).toBeGreaterThanOrEqual(3);
    expect((await b().call('GET', `/webhooks/${s.idB}/circuit`)).body).toMatchObject({ state: 'closed', consecutive_failures: 0, open_until: null });
    const [delivery] = (await b().emit('external_form_created', form('b-1'))).body.delivery_ids as string[];
    expect((await statusesOf(b(), s.idB, delivery!)).map((x) => x.status)).toEqual(['succeeded']);
    s.refusing = false;
    await cleanUp(s);
  });

  it('DELETE /webhooks/{id}/circuit closes the circuit: the next delivery goes out at once', async () => {
    const s = await target();
    // Final failures (400), so none is retried behind the reset.
    await openA(s, 'a-final-');
    s.refusing = false;
    const reset = await a().call('DELETE', `/webhooks/${s.idA}/circuit`);
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ url: s.url, state: 'closed', consecutive_failures: 0 });
    const [delivery] = (await a().emit('external_form_created', form(`a-after-reset-${seq}`))).body.delivery_ids as string[];
    expect((await statusesOf(a(), s.idA, delivery!)).map((x) => x.status)).toEqual(['succeeded']);
    await cleanUp(s);
  });

  it('redeliver goes out once through an open circuit, its attempt numbers continuing after the logged ones', async () => {
    const s = await target();
    // Three final failures (400, not retried) open the circuit; their attempt numbers stay at 1.
    const [first] = await openA(s, 'a-final-');
    await waitFor(async () => (await a().deliveries(s.idA, '?status=failed')).body.data as unknown[], (d) => d.length >= 3);
    s.refusing = false;
    expect((await a().redeliver(s.idA, first!)).status).toBe(202);
    const log = await statusesOf(a(), s.idA, first!);
    expect(log.map((x) => [x.attempt, x.status]).sort()).toEqual([[1, 'failed'], [2, 'succeeded']]);
    expect((await a().call('GET', `/webhooks/${s.idA}/circuit`)).body.state).toBe('closed');
    await cleanUp(s);
  });

  it('answers 404 for the circuit of a registration of another organization', async () => {
    const s = await target();
    expect((await b().call('GET', `/webhooks/${s.idA}/circuit`)).status).toBe(404);
    expect((await b().call('DELETE', `/webhooks/${s.idA}/circuit`)).status).toBe(404);
    await cleanUp(s);
  });
});

describe('secrets integrators choose', () => {
  it('takes 8 to 256 characters for registrations and the risk webhook configuration', async () => {
    const c = webhooksClient(p.url, 'org_l', 'key_l');
    const r = riskClient(p.url, 'org_l', 'key_l');
    const ok = await c.register({ event: 'external_form_created', url: rx.url('/sec'), secret: 'sec-4f1a2b-main' });
    expect(ok.status).toBe(201);
    expect(ok.body.has_secret).toBe(true);
    for (const secret of ['seven77', 'x'.repeat(257)]) {
      const refused = await c.register({ event: 'external_form_created', url: rx.url('/sec'), secret });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/secret: must be 8 to 256 characters/);
      expect((await r.putWebhookConfig({ url: rx.url('/risk'), secret, events: ['risk.high'] })).status).toBe(400);
    }
    expect((await c.patch(ok.body.id as string, { secret: 'eight888' })).status).toBe(200);
    expect((await r.putWebhookConfig({ url: rx.url('/risk-sec'), secret: 'whsec-4f1a2b', events: ['risk.high'] })).status).toBe(200);
    expect((await c.remove(ok.body.id as string)).status).toBe(204);
  });
});

describe('listing and round trips', () => {
  it('lists every registration of the organization in pages, those of the risk configuration marked', async () => {
    const c = webhooksClient(p.url, 'org_l', 'key_l');
    const own: string[] = [];
    for (let i = 0; i < 3; i++) own.push((await c.register({ event: 'document.uploaded', url: rx.url(`/list${i}`) })).body.id as string);
    expect((await riskClient(p.url, 'org_l', 'key_l').putWebhookConfig({ url: rx.url('/risk-list'), events: ['risk.high', 'risk.low'] })).status).toBe(200);
    const seen: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Record<string, any> } = await c.call('GET', `/webhooks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`); // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...(page.body.data as Record<string, unknown>[]));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
    expect(seen.filter((r) => own.includes(r.id as string)).every((r) => r.managed_by === null)).toBe(true);
    const managed = seen.filter((r) => r.managed_by === 'risk_webhook_config');
    expect(managed.map((r) => [r.event, r.url]).sort()).toEqual([['risk.high', rx.url('/risk-list')], ['risk.low', rx.url('/risk-list')]]);
    expect(seen.length).toBe(own.length + managed.length);
    // Another organization sees none of them.
    const other = (await webhooksClient(p.url, 'org_b', 'key_b').call('GET', '/webhooks?limit=500')).body.data as { id: string }[];
    expect(other.some((r) => own.includes(r.id))).toBe(false);
    expect((await c.call('GET', '/webhooks?limit=0')).body.message).toMatch(/^invalid query: limit:/);
  });

  it('takes back what GET answers: GET, PATCH of that body, GET compare equal', async () => {
    const c = webhooksClient(p.url, 'org_l', 'key_l');
    const created = await c.register({ event: 'document.uploaded', url: rx.url('/rt'), secret: 'round-trip', filter: { tags: ['a'] }, auto_payload: { k: 1 } });
    const id = created.body.id as string;
    const read = (await c.get(id)).body;
    const patched = await c.patch(id, read);
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual(read);
    expect((await c.get(id)).body).toEqual(read);
  });

  it('answers no webhook before any configuration, takes that back, and removes its registrations with it', async () => {
    const r = riskClient(p.url, 'org_b', 'key_b');
    const none = (await r.webhookConfig()).body;
    expect(none).toEqual({ url: null, events: [], enabled: false, has_secret: false });
    const put = await r.putWebhookConfig(none);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject(none);
    expect((await r.putWebhookConfig({ url: null, events: ['risk.high'], enabled: true })).body.message).toMatch(/url: is required while enabled/);
    expect((await r.putWebhookConfig({ url: rx.url('/risk-none'), events: ['risk.high'] })).status).toBe(200);
    const managed = async () => ((await webhooksClient(p.url, 'org_b', 'key_b').call('GET', '/webhooks')).body.data as { managed_by: string | null }[]).filter((x) => x.managed_by !== null);
    expect(await managed()).toHaveLength(1);
    expect((await r.putWebhookConfig(none)).status).toBe(200);
    expect(await managed()).toEqual([]);
  });

  it('takes back what GET /v1/webhooks/config answers: GET, PUT of that body, GET compare equal', async () => {
    const r = riskClient(p.url, 'org_l', 'key_l');
    expect((await r.putWebhookConfig({ url: rx.url('/risk-rt'), secret: 'risk-round', events: ['risk.low'] })).status).toBe(200);
    const read = (await r.webhookConfig()).body;
    const put = await r.putWebhookConfig(read);
    expect(put.status).toBe(200);
    expect(put.body).toEqual(read);
    expect((await r.webhookConfig()).body).toEqual(read);
  });
});

describe('OpenAPI examples', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const bodyExample = (doc: any, path: string, method: string): unknown => {
    const schema = doc.paths[path][method].requestBody.content['application/json'].schema;
    const resolved = schema.$ref ? doc.components.schemas[String(schema.$ref).split('/').pop()!] : schema;
    return resolved.example;
  };

  it('the documented examples of the changed bodies are accepted as they are', async () => {
    const c = webhooksClient(p.url, 'org_s', 'key_s');
    const hooks = (await fetchOpenApi(`${p.url}/webhooks/openapi.json`)).doc;
    const created = await c.register(bodyExample(hooks, '/webhooks', 'post'));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const patch = bodyExample(hooks, '/webhooks/{id}', 'patch');
    expect(patch).toBeTypeOf('object');
    expect((await c.patch(id, patch)).status).toBe(200);
    expect((await c.remove(id)).status).toBe(204);
    const risk = (await fetchOpenApi(`${p.url}/risk/openapi.json`)).doc;
    const config = bodyExample(risk, '/v1/webhooks/config', 'put');
    expect(config).toBeTypeOf('object');
    expect((await riskClient(p.url, 'org_s', 'key_s').putWebhookConfig(config)).status).toBe(200);
  });
});
