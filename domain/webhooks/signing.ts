import { createHmac } from 'node:crypto';

/**
 * Signatures of a delivery, computed over the exact bytes sent.
 * - X-Service-Signature (Document 3): `sha256=<hex>` HMAC-SHA256 keyed with the secret's UTF-8 bytes.
 * - Standard Webhooks (standardwebhooks.com): `v1,<base64>` HMAC-SHA256 of `<id>.<timestamp>.<body>`
 *   keyed with the base64 part of a `whsec_` secret; verifiable with the `standardwebhooks` package.
 * During a rotation's grace period both secrets sign and each header carries the signatures
 * separated by a space, newest first.
 */

export const serviceSignature = (secret: string, body: Buffer): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** Whether a secret can sign Standard Webhooks (`whsec_` + base64 of at least 24 bytes). */
export function isStandardSecret(secret: string): boolean {
  const m = WHSEC.exec(secret);
  return m !== null && Buffer.from(m[1]!, 'base64').length >= 24;
}

export function standardSignature(secret: string, id: string, timestampSeconds: number, body: Buffer): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

export interface SigningSecrets {
  current: string;
  /** The secret being rotated out, while its grace period lasts. */
  previous?: string;
}

export interface SignatureHeaders {
  [header: string]: string;
}

export function signatureHeaders(secrets: SigningSecrets, opts: { standard: boolean; id: string; timestampSeconds: number; body: Buffer }): SignatureHeaders {
  const all = [secrets.current, ...(secrets.previous ? [secrets.previous] : [])];
  const headers: SignatureHeaders = { 'x-service-signature': all.map((s) => serviceSignature(s, opts.body)).join(' ') };
  if (opts.standard) {
    headers['webhook-id'] = opts.id;
    headers['webhook-timestamp'] = String(opts.timestampSeconds);
    headers['webhook-signature'] = all.filter(isStandardSecret).map((s) => standardSignature(s, opts.id, opts.timestampSeconds, opts.body)).join(' ');
  }
  return headers;
}
