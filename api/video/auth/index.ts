import type { Platform } from '../../../infra/platform.js';
import type { KeyRing } from '../../http/auth.js';
import { requestWindows } from '../../http/shared-windows.js';
import { bearerTokens } from './bearer-token.js';
import { tokenMinter } from './mint.js';
import { createPrincipalStore } from '../../../pipelines/video/principal-store.js';
import { credentialResolver } from './resolver.js';

/** The video service's credentials, built from the platform: principals, tokens, the resolver. */
export function videoAuth(platform: Platform, keys: KeyRing) {
  const { config, clock } = platform;
  const principals = createPrincipalStore({ analytics: platform.analytics, clock });
  const tokens = config.BEARER_SIGNING_SECRET ? bearerTokens(config.BEARER_SIGNING_SECRET, () => clock.now()) : undefined;
  const perPrincipal = { limit: config.RATE_LIMIT_PER_MINUTE, windowMs: 60_000 };
  const windows = requestWindows({ store: platform.windows, scope: 'rate:video-principal', log: platform.log })(perPrincipal.windowMs);
  return {
    principals,
    minter: tokenMinter(tokens),
    resolver: credentialResolver({ keys, principals, tokens, windows, perPrincipal, clock }),
  };
}

export type VideoAuth = ReturnType<typeof videoAuth>;
