import express, { type Router } from 'express';
import { videoErrorSchema } from '../../schemas/http/video.js';
import { buildOpenApiDocument, type RouteDoc } from '../http/openapi.js';
import { serviceRouter } from '../http/service-router.js';
import { assetRoutes } from './assets.js';
import { compileRoutes } from './compile.js';
import type { VideoApiDeps } from './deps.js';
import { renderRoutes } from './render.js';
import type { VideoRoute } from './route.js';
import { templateRoutes } from './templates.js';
import { documentRoutes } from './documents.js';
import { sourceRoutes } from './sources.js';
import { previewRoutes } from './preview.js';
import { clipRoutes } from './clips.js';
import { videoAuth, type VideoAuth } from './auth/index.js';
import { principalRoutes } from './auth/principal-routes.js';
import { oauthRoutes } from './auth/oauth-routes.js';
import { demoRoutes } from './auth/demo-routes.js';
import { mcpRoutes } from './mcp/routes.js';
import { agentTools } from './mcp/tools.js';

export type { VideoApiDeps } from './deps.js';

export const VIDEO_OPENAPI_PATH = '/api/openapi.json';

/** Every area's routes, in the order the OpenAPI document lists them. */
const areas: ((deps: VideoApiDeps, auth: VideoAuth) => VideoRoute[])[] = [
  compileRoutes,
  renderRoutes,
  (deps) => previewRoutes(deps.previews),
  templateRoutes,
  documentRoutes,
  assetRoutes,
  sourceRoutes,
  clipRoutes,
  (_deps, auth) => principalRoutes(auth),
  (_deps, auth) => oauthRoutes(auth),
  (deps) => mcpRoutes(agentTools(deps)),
  ({ platform: { config } }, auth) => demoRoutes({ minter: auth.minter, origins: config.VIDEO_DEMO_ORIGINS, orgId: config.VIDEO_DEMO_ORG }),
];

/** The route's scope and whether it is public, as the OpenAPI document marks them. */
const documented = (r: RouteDoc & { scope?: string }): RouteDoc => ({
  ...r,
  extensions: { ...r.extensions, 'x-public': r.authenticated === false, ...(r.scope ? { 'x-required-scope': r.scope } : {}) },
});

/**
 * The video production service's HTTP routes. Every protected route goes through the one
 * credential resolver (auth/resolver.ts): x-api-key or a bearer token, and the route's scope; the
 * organization comes from the credential alone (CONTRACTS.md section 2), `x-org-id` is ignored.
 * Routes marked `authenticated: false` are public.
 */
export function videoRouter(deps: VideoApiDeps): Router {
  const { platform } = deps;
  const auth = videoAuth(platform, deps.keys);
  const list = areas.flatMap((area) => area(deps, auth));
  const document = buildOpenApiDocument(
    {
      title: 'Weir video production',
      version: '0.2.0',
      description:
        'Script compiler, moods, rendering to MP4 (jobs on a queue served by render workers), templates, assets, principals, bearer tokens, OAuth client credentials and the MCP agent transport. Protected routes take x-api-key or Authorization: Bearer; `x-required-scope` names the scope a route needs and `x-public` marks routes without a credential. Every error answers {status, error, message, request_id} (the OAuth token endpoint answers RFC 6749 errors); a compile failure adds diagnostics.',
      securityHeaders: ['x-api-key'],
      tooLarge: videoErrorSchema,
      edgeRateLimit: true,
      bearer: true,
    },
    [...list, { method: 'get' as const, path: VIDEO_OPENAPI_PATH, summary: 'This document', authenticated: false, responses: { 200: { description: 'OpenAPI 3.0 document' } } }].map(documented),
  );
  const prefixes = [...new Set([...list.map((r) => r.path.split('/:')[0]!), VIDEO_OPENAPI_PATH])];
  const form = express.urlencoded({ extended: false, limit: platform.config.BODY_LIMIT });
  return serviceRouter({ style: 'standard', bodyLimit: platform.config.BODY_LIMIT, prefixes }, (r) => {
    r.get(VIDEO_OPENAPI_PATH, (_req, res) => void res.json(document));
    for (const route of list) {
      const guards = [
        ...(route.body?.contentType === 'application/x-www-form-urlencoded' ? [form] : []),
        ...(route.authenticated === false ? [] : [auth.resolver.guard({ scope: route.scope, apiKeyOnly: route.apiKeyOnly })]),
      ];
      r[route.method](route.path, ...guards, (req, res) => route.handle(req, res));
    }
  });
}
