import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { isStandardSecret, serviceSignature, signatureHeaders } from './signing.js';

const body = Buffer.from('{"delivery_id":"whd_1","event":"x","timestamp":"t","payload":{"é":1}}');

describe('signatures', () => {
  it('X-Service-Signature is sha256=<hex> HMAC over the raw bytes', () => {
    expect(serviceSignature('s3cret', body)).toBe(`sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`);
  });

  it('Standard Webhooks headers verify with the standardwebhooks package', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const ts = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders({ current: secret }, { standard: true, id: 'whd_1', timestampSeconds: ts, body });
    expect(() => new Webhook(secret).verify(body.toString('utf8'), headers)).not.toThrow();
    expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(body.toString('utf8'), headers)).toThrow();
  });

  it('during a rotation both secrets sign, newest first, and either verifies', () => {
    const [current, previous] = [`whsec_${randomBytes(32).toString('base64')}`, `whsec_${randomBytes(32).toString('base64')}`];
    const headers = signatureHeaders({ current, previous }, { standard: true, id: 'whd_2', timestampSeconds: Math.floor(Date.now() / 1000), body });
    expect(headers['x-service-signature']).toBe(`${serviceSignature(current, body)} ${serviceSignature(previous, body)}`);
    for (const s of [current, previous]) expect(() => new Webhook(s).verify(body.toString('utf8'), headers)).not.toThrow();
  });

  it('only whsec_ secrets of at least 24 bytes sign Standard Webhooks', () => {
    expect(isStandardSecret(`whsec_${randomBytes(24).toString('base64')}`)).toBe(true);
    expect(isStandardSecret(`whsec_${randomBytes(8).toString('base64')}`)).toBe(false);
    expect(isStandardSecret('plain-secret-value')).toBe(false);
    expect(signatureHeaders({ current: 'plain-secret-value' }, { standard: false, id: 'x', timestampSeconds: 1, body })).not.toHaveProperty('webhook-signature');
  });
});
