import type { Request, Response } from 'express';
import { VIDEO_SCOPES, isVideoScope } from '../../../domain/video/scopes.js';
import {
  authorizationServerMetadataSchema,
  oauthErrorSchema,
  oauthTokenRequestSchema,
  oauthTokenSchema,
  protectedResourceMetadataSchema,
  TOKEN_TTL,
} from '../../../schemas/http/video-auth.js';
import { videoErrorSchema } from '../../../schemas/http/video.js';
import { notImplemented } from '../../http/errors.js';
import { MCP_PATH } from '../mcp/path.js';
import type { VideoRoute } from '../route.js';
import type { TokenMinter } from './mint.js';
import type { PrincipalStore } from '../../../pipelines/video/principal-store.js';

/**
 * OAuth for remote agent (MCP) connectors: protected-resource metadata (RFC 9728), authorization
 * server metadata (RFC 8414) and a client-credentials token endpoint (RFC 6749 section 4.4) whose
 * client is a database principal: client_id its id, client_secret its API key.
 */

const baseOf = (req: Request) => `${req.protocol}://${req.get('host')}`;

type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope' | 'unsupported_response_type' | 'server_error';
const oauthError = (res: Response, status: number, error: OAuthErrorCode, description: string) => {
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).json({ error, error_description: description });
};

/** client_secret_basic: `Authorization: Basic base64(urlencoded id : urlencoded secret)` (RFC 6749 section 2.3.1). */
function basicCredentials(req: Request): { id: string; secret: string } | undefined {
  const [scheme, value] = (req.get('authorization') ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !value) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
}

export function oauthRoutes(deps: { principals: PrincipalStore; minter: TokenMinter }): VideoRoute[] {
  const { principals, minter } = deps;
  const resourceMetadata = (req: Request, resource: string) => ({
    resource,
    authorization_servers: minter.enabled ? [baseOf(req)] : [],
    scopes_supported: [...VIDEO_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Weir video production',
  });
  return [
    {
      method: 'get',
      path: '/.well-known/oauth-protected-resource',
      summary: 'Protected resource metadata of the video API (RFC 9728)',
      authenticated: false,
      responses: { 200: { description: 'Metadata', schema: protectedResourceMetadataSchema } },
      handle: (req, res) => void res.json(resourceMetadata(req, baseOf(req))),
    },
    {
      method: 'get',
      path: `/.well-known/oauth-protected-resource${MCP_PATH}`,
      summary: 'Protected resource metadata of the agent (MCP) route (RFC 9728)',
      authenticated: false,
      responses: { 200: { description: 'Metadata', schema: protectedResourceMetadataSchema } },
      handle: (req, res) => void res.json(resourceMetadata(req, `${baseOf(req)}${MCP_PATH}`)),
    },
    {
      method: 'get',
      path: '/.well-known/oauth-authorization-server',
      summary: 'Authorization server metadata (RFC 8414): client credentials only',
      authenticated: false,
      responses: {
        200: { description: 'Metadata', schema: authorizationServerMetadataSchema },
        501: { description: 'No BEARER_SIGNING_SECRET configured', schema: videoErrorSchema },
      },
      handle: (req, res) => {
        if (!minter.enabled) throw notImplemented('OAuth needs BEARER_SIGNING_SECRET in the configuration');
        const base = baseOf(req);
        res.json({
          issuer: base,
          authorization_endpoint: `${base}/oauth/authorize`,
          token_endpoint: `${base}/oauth/token`,
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
          scopes_supported: [...VIDEO_SCOPES],
          response_types_supported: [],
        });
      },
    },
    {
      method: 'get',
      path: '/oauth/authorize',
      summary: 'Authorization endpoint: refuses every request (tokens come from client credentials only)',
      description: 'Listed in the authorization server metadata because MCP clients require one; interactive onboarding is a separate workflow.',
      authenticated: false,
      responses: { 400: { description: 'unsupported_response_type', schema: oauthErrorSchema } },
      handle: (_req, res) => oauthError(res, 400, 'unsupported_response_type', 'this server issues tokens by client credentials only: POST /oauth/token'),
    },
    {
      method: 'post',
      path: '/oauth/token',
      summary: 'Client-credentials token (RFC 6749 section 4.4)',
      description: `Form-encoded. The client is a database principal: client_id its id, client_secret its API key (in the form or as HTTP Basic). The token lives ${TOKEN_TTL.default} seconds. Errors answer RFC 6749 bodies.`,
      authenticated: false,
      body: { schema: oauthTokenRequestSchema, contentType: 'application/x-www-form-urlencoded' },
      responses: {
        200: { description: 'The token', schema: oauthTokenSchema },
        400: { description: 'invalid_request, unsupported_grant_type or invalid_scope', schema: oauthErrorSchema },
        401: { description: 'invalid_client: unknown id, wrong secret or a disabled principal', schema: oauthErrorSchema },
        501: { description: 'No BEARER_SIGNING_SECRET configured', schema: oauthErrorSchema },
      },
      handle: async (req, res) => {
        if (!minter.enabled) return oauthError(res, 501, 'server_error', 'OAuth needs BEARER_SIGNING_SECRET in the configuration');
        if (!req.is('application/x-www-form-urlencoded')) return oauthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
        const form = (req.body ?? {}) as Record<string, unknown>;
        const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : undefined);
        const grant = field('grant_type');
        if (!grant) return oauthError(res, 400, 'invalid_request', 'grant_type is missing');
        if (grant !== 'client_credentials') return oauthError(res, 400, 'unsupported_grant_type', `grant_type ${grant} is not supported; use client_credentials`);
        const basic = basicCredentials(req);
        const id = basic?.id ?? field('client_id');
        const secret = basic?.secret ?? field('client_secret');
        if (!id || !secret) return oauthError(res, 400, 'invalid_request', 'client_id and client_secret are required (in the form or as HTTP Basic)');
        const principal = await principals.byIdAndKey(id, secret);
        if (!principal || principal.disabled) {
          res.setHeader('WWW-Authenticate', 'Basic realm="weir-video"');
          return oauthError(res, 401, 'invalid_client', principal ? `client ${id} is disabled` : 'unknown client or wrong client_secret');
        }
        const wanted = field('scope')?.split(' ').filter(Boolean);
        const unknown = wanted?.filter((s) => !isVideoScope(s)) ?? [];
        if (unknown.length > 0) return oauthError(res, 400, 'invalid_scope', `unknown scope: ${unknown.join(', ')}`);
        const beyond = wanted?.filter((s) => !principal.scopes.includes(s as never)) ?? [];
        if (beyond.length > 0) return oauthError(res, 400, 'invalid_scope', `the client does not hold: ${beyond.join(', ')}`);
        const caller = { orgId: principal.orgId, plan: 'enterprise' as const, source: 'principal' as const, principalId: principal.id, scopes: principal.scopes };
        const { token, claims } = await minter.mint(caller, wanted?.filter(isVideoScope), TOKEN_TTL.default);
        res.setHeader('Cache-Control', 'no-store');
        res.json({ access_token: token, token_type: 'Bearer', expires_in: claims.expiresAt - claims.issuedAt, scope: claims.scopes.join(' ') });
      },
    },
  ];
}
