import type { VideoScope } from '../../../domain/video/scopes.js';
import type { Principal } from '../../http/auth.js';
import { forbidden, notImplemented } from '../../http/errors.js';
import type { BearerTokens, TokenClaims } from './bearer-token.js';
import { scopesOf } from './resolver.js';

/**
 * Mints a session token for a resolved caller: its scopes must be a subset of the caller's (a
 * token never widens what its holder may do), its organization and principal are the caller's,
 * and a token minted by a bearer token expires no later than that token (so a leaked token cannot
 * renew itself).
 * 501 when no BEARER_SIGNING_SECRET is configured.
 */
export function tokenMinter(tokens: BearerTokens | undefined) {
  return {
    enabled: tokens !== undefined,
    async mint(caller: Principal, wanted: VideoScope[] | undefined, ttlSeconds: number): Promise<{ token: string; claims: TokenClaims }> {
      if (!tokens) throw notImplemented('bearer tokens need BEARER_SIGNING_SECRET (at least 16 characters) in the configuration');
      const held = scopesOf(caller);
      const extra = (wanted ?? []).filter((s) => !held.includes(s));
      if (extra.length > 0) throw forbidden(`the requested scopes exceed the caller's: ${extra.join(', ')}`);
      return tokens.sign({ orgId: caller.orgId, principalId: caller.principalId!, scopes: [...new Set(wanted ?? held)] }, ttlSeconds, caller.expiresAt);
    },
  };
}

export type TokenMinter = ReturnType<typeof tokenMinter>;

/** A minted token as POST /api/session-token answers it. */
export const presentToken = (token: string, claims: TokenClaims) => ({
  tokenType: 'Bearer' as const,
  accessToken: token,
  orgId: claims.orgId,
  principalId: claims.principalId,
  scopes: claims.scopes,
  issuedAt: new Date(claims.issuedAt * 1000).toISOString(),
  expiresAt: new Date(claims.expiresAt * 1000).toISOString(),
});
