import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSender, RESPONSE_LIMIT } from '../pipelines/webhooks/sender.js';
import { startReceiver, type Receiver } from './fixtures/webhook-receiver.js';

/** The outbound client against a real receiver: address policy, redirects, deadline, answer size. */

let rx: Receiver;
const body = Buffer.from('{"x":1}');
const headers = { 'content-type': 'application/json' };
const sent = <T>(r: T | null): T => {
  if (r === null) throw new Error('not sent');
  return r;
};

beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx?.close());

describe('outbound safety', () => {
  const strict = createSender({ timeoutMs: 2_000, allowPrivate: false });
  afterAll(() => strict.close());

  it('refuses a loopback address literal without connecting', async () => {
    const r = sent(await strict.send(rx.url('/literal'), body, headers));
    expect(r).toMatchObject({ status: null, refused: true });
    expect(r.error).toMatch(/127\.0\.0\.1 is a private, loopback or link-local address/);
    expect(rx.hits('/literal')).toHaveLength(0);
  });

  it('refuses a name that resolves to a loopback address, judged after resolution', async () => {
    const r = sent(await strict.send(rx.url('/named').replace('127.0.0.1', 'localhost'), body, headers));
    expect(r).toMatchObject({ status: null, refused: true });
    expect(r.error).toMatch(/localhost resolves to/);
    expect(rx.hits('/named')).toHaveLength(0);
  });
});

describe('answers', () => {
  const open = createSender({ timeoutMs: 500, allowPrivate: true });
  afterAll(() => open.close());

  it('does not follow redirects', async () => {
    rx.reply('/moved', () => ({ status: 302, headers: { location: rx.url('/elsewhere') } }));
    expect(sent(await open.send(rx.url('/moved'), body, headers))).toMatchObject({ status: 302, error: 'HTTP 302', refused: false });
    expect(rx.hits('/elsewhere')).toHaveLength(0);
  });

  it('gives up on an answer that does not come within the deadline', async () => {
    rx.reply('/slow', () => ({ status: 200, delayMs: 3_000 }));
    const r = sent(await open.send(rx.url('/slow'), body, headers));
    expect(r).toMatchObject({ status: null, error: 'no complete answer within 500 ms', refused: false });
  });

  it('keeps at most the first 4 KiB of an answer, and the raw bytes reach the receiver', async () => {
    rx.reply('/big', () => ({ status: 200, body: 'y'.repeat(100_000) }));
    const r = sent(await open.send(rx.url('/big'), body, headers));
    expect(r.status).toBe(200);
    expect(r.responseBody).toHaveLength(RESPONSE_LIMIT);
    expect(rx.hits('/big')[0]!.body.equals(body)).toBe(true);
  });

  it('reports a refused connection as no answer (retryable)', async () => {
    const r = sent(await open.send('http://127.0.0.1:1/', body, headers));
    expect(r).toMatchObject({ status: null, refused: false });
    expect(r.error).toMatch(/ECONNREFUSED/);
  });
});
