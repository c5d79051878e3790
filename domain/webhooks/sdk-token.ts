import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The session token of a signed-in SDK user: `sdk1.<payload>.<mac>`, payload base64url JSON
 * `{org, sub, exp}` (exp in seconds), mac HMAC-SHA256 of the payload text with the deployment's
 * BEARER_SIGNING_SECRET. Permissions are not in the token: they are read at each decision, so a
 * revoked role takes effect at once.
 */

export interface SdkSession {
  org: string;
  sub: string;
  exp: number;
}

const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

export function signSdkToken(secret: string, session: SdkSession): string {
  const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
  return `sdk1.${payload}.${mac(secret, payload)}`;
}

/** The session of a valid, unexpired token; null otherwise. */
export function verifySdkToken(secret: string, token: string, nowMs: number): SdkSession | null {
  const [prefix, payload, sig] = token.split('.');
  if (prefix !== 'sdk1' || !payload || !sig) return null;
  const want = Buffer.from(mac(secret, payload));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  try {
    const s = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as SdkSession;
    return typeof s.org === 'string' && typeof s.sub === 'string' && typeof s.exp === 'number' && s.exp * 1000 > nowMs ? s : null;
  } catch {
    return null;
  }
}
