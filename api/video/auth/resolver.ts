import type { Request, RequestHandler } from 'express';
import { VIDEO_SCOPES, type VideoScope } from '../../../domain/video/scopes.js';
import { keyDigest, type Rate } from '../../../infra/api-keys.js';
import type { Clock } from '../../../infra/clock.js';
import type { KeyRing, Principal } from '../../http/auth.js';
import { forbidden, HttpError, unauthorized } from '../../http/errors.js';
import type { RequestWindows } from '../../http/rate-limit.js';
import type { BearerTokens } from './bearer-token.js';
import { isPrincipalId, type PrincipalStore } from '../../../pipelines/video/principal-store.js';
import { MCP_PATH } from '../mcp/path.js';

/**
 * The one credential resolver of the video service's protected routes. `x-api-key` is a deployment
 * key (API_KEYS: every scope) or a database principal (its scopes; disabled answers 401);
 * `Authorization: Bearer` is a signed session token (its scopes), refused once its principal is
 * disabled. The organization comes from the
 * credential alone: `x-org-id` is never read. A route's scope missing from the credential is a 403
 * naming it. Principal and bearer callers are rate limited per principal (a token counts against
 * the principal that minted it), across API processes through the window store.
 */

export interface Guard {
  /** The scope the route needs; none: any authenticated caller. */
  scope?: VideoScope;
  /** Principal management: a bearer token is refused with 403. */
  apiKeyOnly?: boolean;
}

export interface CredentialResolver {
  guard(g: Guard): RequestHandler;
  /** Resolves the request's credential (401 when it has none or a bad one), without a scope check. */
  resolve(req: Request): Promise<Principal>;
}

export const scopesOf = (p: Principal): readonly VideoScope[] => (p.scopes as readonly VideoScope[] | undefined) ?? VIDEO_SCOPES;

/** The id a deployment key goes by as a principal: a prefix of its digest, never the key. */
export const deploymentPrincipalId = (key: string): string => `key_${keyDigest(key).toString('hex', 0, 8)}`;

/** Where an OAuth client finds how to get a token for this resource (RFC 9728 section 5.1); the agent route has metadata of its own. */
const challenge = (req: Request) => {
  const resource = req.path.startsWith(MCP_PATH) ? MCP_PATH : '';
  return `Bearer realm="weir-video", resource_metadata="${req.protocol}://${req.get('host')}/.well-known/oauth-protected-resource${resource}"`;
};

export function credentialResolver(deps: {
  keys: KeyRing;
  principals: PrincipalStore;
  tokens: BearerTokens | undefined;
  windows: RequestWindows;
  perPrincipal: Rate;
  clock: Clock;
}): CredentialResolver {
  async function fromHeaders(req: Request): Promise<Principal> {
    const authorization = req.get('authorization');
    if (authorization !== undefined) {
      const [scheme, token] = authorization.split(' ');
      if (scheme?.toLowerCase() !== 'bearer' || !token) throw unauthorized('the Authorization header must be "Bearer <token>"');
      if (!deps.tokens) throw unauthorized('bearer tokens are not enabled here (no BEARER_SIGNING_SECRET); send x-api-key');
      const claims = await deps.tokens.verify(token);
      if (!claims) throw unauthorized('the bearer token is expired, malformed or not signed by this service');
      // A token dies with the database principal that minted it (deployment keys and the demo are not principals).
      if (isPrincipalId(claims.principalId) && !(await deps.principals.isActive(claims.orgId, claims.principalId))) {
        throw unauthorized(`principal ${claims.principalId} is disabled; its tokens are refused`);
      }
      return { orgId: claims.orgId, plan: 'enterprise', source: 'bearer', principalId: claims.principalId, scopes: claims.scopes, expiresAt: claims.expiresAt };
    }
    const key = req.get('x-api-key');
    if (!key) throw unauthorized('send x-api-key or Authorization: Bearer <token>');
    const deployment = deps.keys.verify(key);
    if (deployment) return { ...deployment, principalId: deploymentPrincipalId(key) };
    const p = await deps.principals.byKey(key);
    if (!p) throw unauthorized();
    if (p.disabled) throw unauthorized(`principal ${p.id} is disabled`);
    return { orgId: p.orgId, plan: 'enterprise', source: 'principal', principalId: p.id, scopes: p.scopes };
  }

  function limit(p: Principal): void {
    if (p.source === 'deployment') return; // the edge counts deployment keys by key already
    const now = deps.clock.now();
    const w = deps.windows.hit(`${p.orgId}:${p.principalId}`, now);
    if (w.count > deps.perPrincipal.limit) {
      const retry = Math.max(1, Math.ceil((w.start + deps.perPrincipal.windowMs - now) / 1000));
      throw new HttpError(429, 'rate_limited', `principal ${p.principalId} made more than ${deps.perPrincipal.limit} requests this minute; retry in ${retry}s`, { retry_after_seconds: retry });
    }
  }

  async function resolve(req: Request): Promise<Principal> {
    try {
      const p = await fromHeaders(req);
      limit(p);
      return p;
    } catch (err) {
      if (err instanceof HttpError && err.status === 401) req.res?.setHeader('WWW-Authenticate', challenge(req));
      if (err instanceof HttpError && err.status === 429) req.res?.setHeader('Retry-After', String(err.extra.retry_after_seconds));
      throw err;
    }
  }

  return {
    resolve,
    guard: (g) => async (req, _res, next) => {
      try {
        const p = await resolve(req);
        if (g.apiKeyOnly && p.source === 'bearer') throw forbidden('principal management needs an API key (x-api-key); a bearer token may not manage principals');
        if (g.scope && !scopesOf(p).includes(g.scope)) throw forbidden(`this credential lacks the scope ${g.scope}`);
        req.principal = p;
        next();
      } catch (err) {
        next(err);
      }
    },
  };
}
