import { createHmac } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { isVideoScope, type VideoScope } from '../../../domain/video/scopes.js';

/**
 * Short-lived bearer tokens: JWTs signed with HS256 under BEARER_SIGNING_SECRET, carrying the
 * organization, the principal, the scopes and the expiry. jose checks the signature (constant time),
 * the algorithm, the issuer, the audience and the expiry. The signing key is derived from the
 * secret for this use alone, so no other token signed under the same secret (webhooks' SDK sessions)
 * can pass for a video token.
 */

const ISSUER = 'weir-video';
/** Valid tokens remembered, so a token's later requests skip the signature check (about 0.3 ms on WebCrypto). */
const MAX_VERIFIED = 10_000;
const AUDIENCE = 'weir-video-api';

export interface TokenClaims {
  orgId: string;
  principalId: string;
  scopes: VideoScope[];
  issuedAt: number;
  expiresAt: number;
}

export interface BearerTokens {
  /** Signs a token living `ttlSeconds`, or until `notAfter` (epoch seconds) when that comes first. */
  sign(claims: Omit<TokenClaims, 'issuedAt' | 'expiresAt'>, ttlSeconds: number, notAfter?: number): Promise<{ token: string; claims: TokenClaims }>;
  /** The claims of a valid token, or null for an expired, tampered, foreign or malformed one. */
  verify(token: string): Promise<TokenClaims | null>;
}

export function bearerTokens(secret: string, now: () => number): BearerTokens {
  // Imported once: handing jose raw bytes would import the key again at every sign and verify.
  const key = crypto.subtle.importKey('raw', createHmac('sha256', secret).update('weir-video-bearer-v1').digest(), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  const verified = new Map<string, TokenClaims>();
  return {
    async sign(c, ttlSeconds, notAfter = Infinity) {
      const issuedAt = Math.floor(now() / 1000);
      const claims: TokenClaims = { ...c, issuedAt, expiresAt: Math.min(issuedAt + ttlSeconds, notAfter) };
      const token = await new SignJWT({ org: c.orgId, scope: c.scopes.join(' ') })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(c.principalId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(claims.expiresAt)
        .sign(await key);
      return { token, claims };
    },

    async verify(token) {
      const seen = verified.get(token);
      if (seen) return seen.expiresAt * 1000 > now() ? seen : null;
      try {
        const { payload } = await jwtVerify(token, await key, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: new Date(now()),
          clockTolerance: 0,
          requiredClaims: ['sub', 'exp', 'iat'],
        });
        const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
        if (typeof payload.org !== 'string' || !scopes.every(isVideoScope)) return null;
        const claims = { orgId: payload.org, principalId: payload.sub!, scopes, issuedAt: payload.iat!, expiresAt: payload.exp! };
        // Only tokens that verified enter, so made-up tokens add nothing; the oldest leaves first.
        if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value!);
        verified.set(token, claims);
        return claims;
      } catch {
        return null;
      }
    },
  };
}
