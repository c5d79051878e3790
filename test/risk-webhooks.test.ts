import { createHmac } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { riskService } from '../services/risk.js';
import { syncRiskWebhooks, webhooksService } from '../services/webhooks.js';
import { riskClient } from './fixtures/risk-http.js';
import { startReceiver, type Receiver } from './fixtures/webhook-receiver.js';
import { waitFor } from './fixtures/counters-http.js';

/**
 * risk.high / risk.low end to end: the risk check's /v1/webhooks/config becomes webhook
 * registrations, and a check's event reaches a real receiver through the workflow webhooks
 * pipeline, signed over its raw bytes with the configured secret.
 */

const TOR_IP = '198.51.100.7';
const LONDON_IP = '81.2.69.160';
const SECRET = 'risk-secret-0123456789';
let p: Awaited<ReturnType<typeof startTestProcess>>;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  p = await startTestProcess({
    services: [riskService({ onWebhookConfig: syncRiskWebhooks }), webhooksService],
    env: {
      API_KEYS: 'org_a:key_a,org_b:key_b',
      RISK_LISTS_DIR: path.join(import.meta.dirname, 'fixtures', 'risk-lists'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    },
  });
});
afterAll(async () => {
  await p?.stop();
  await receiver?.close();
});

const envelopeOf = (body: Buffer) => JSON.parse(body.toString('utf8')) as { delivery_id: string; event: string; payload: Record<string, unknown> };

describe('risk webhooks through the delivery pipeline', () => {
  it('delivers risk.high for a block to the configured URL, signed with the configured secret', async () => {
    const c = riskClient(p.url, 'org_a', 'key_a');
    const put = await c.putWebhookConfig({ url: receiver.url('/risk-a'), secret: SECRET, events: ['risk.high'] });
    expect(put.status).toBe(200);
    const blocked = await c.check({ ip: TOR_IP, email: 'x@mailinator.com', context: { action: 'payment', user_id: 'hooked' } });
    expect(blocked.body.decision.outcome).toBe('block');

    const [hit] = await waitFor(async () => receiver.hits('/risk-a'), (h) => h.length >= 1);
    const envelope = envelopeOf(hit!.body);
    expect(envelope).toMatchObject({ event: 'risk.high', payload: { request_id: blocked.body.request_id, outcome: 'block', user_id: 'hooked' } });
    expect(hit!.headers['x-service-delivery-id']).toBe(envelope.delivery_id);
    expect(hit!.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(hit!.body).digest('hex')}`);
  });

  it('follows a configuration change: a new URL and events take over, the old URL gets nothing more', async () => {
    const c = riskClient(p.url, 'org_b', 'key_b');
    expect((await c.putWebhookConfig({ url: receiver.url('/risk-b-old'), secret: SECRET, events: ['risk.low'] })).status).toBe(200);
    expect((await c.putWebhookConfig({ url: receiver.url('/risk-b-new'), events: ['risk.low'] })).status).toBe(200);
    const allowed = await c.check({ ip: LONDON_IP, email: 'anna.rossi@example.com', context: { action: 'login', user_id: 'calm' } });
    expect(allowed.body.decision.outcome).toBe('allow');

    const [hit] = await waitFor(async () => receiver.hits('/risk-b-new'), (h) => h.length >= 1);
    expect(envelopeOf(hit!.body)).toMatchObject({ event: 'risk.low', payload: { request_id: allowed.body.request_id, outcome: 'allow' } });
    // The secret was kept from the first PUT, so the delivery is signed with it.
    expect(hit!.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(hit!.body).digest('hex')}`);
    expect(receiver.hits('/risk-b-old')).toEqual([]);
    // org_a configured only risk.high: org_b's allow went nowhere else.
    expect(receiver.hits('/risk-a').every((h) => envelopeOf(h.body).event === 'risk.high')).toBe(true);
  });
});
