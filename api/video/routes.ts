import express, { type Router } from 'express';
import { z } from 'zod';
import type { Platform } from '../../infra/platform.js';
import { compile } from '../../domain/video/compile.js';
import { closest } from '../../domain/video/diagnostics.js';
import { BUILT_IN_MOODS, MOOD_ALIASES, MOODS, moodNames, resolveMood } from '../../domain/video/moods.js';
import {
  compileRequestSchema,
  compileResponseSchema,
  healthSchema,
  moodListSchema,
  resolvedMoodSchema,
  videoErrorSchema,
} from '../../schemas/http/video.js';
import type { KeyRing } from '../http/auth.js';
import { HttpError, notFound } from '../http/errors.js';
import { buildOpenApiDocument, type RouteDoc } from '../http/openapi.js';
import { serviceRouter } from '../http/service-router.js';
import { parseOr400 } from '../http/validate.js';
import type { VideoRoute } from './route.js';
import { videoAuth } from './auth/index.js';
import { principalRoutes } from './auth/principal-routes.js';
import { oauthRoutes } from './auth/oauth-routes.js';
import { demoRoutes } from './auth/demo-routes.js';
import { mcpRoutes } from './mcp/routes.js';
import { compileTool } from './mcp/tools.js';

export interface VideoApiDeps {
  platform: Platform;
  keys: KeyRing;
}

export const VIDEO_OPENAPI_PATH = '/api/openapi.json';


const error = (description: string) => ({ description, schema: videoErrorSchema });
const errors = { 401: error('Missing, unknown or disabled x-api-key, or an expired or bad bearer token'), 403: error('The credential lacks the scope the route needs') };

function compileFailed(diagnostics: ReturnType<typeof compile>['diagnostics']): HttpError {
  const count = diagnostics.filter((d) => d.level === 'error').length;
  const first = diagnostics.find((d) => d.level === 'error')!;
  const message = `the script has ${count} error${count === 1 ? '' : 's'}; the first, at line ${first.line} column ${first.column}: ${first.message}`;
  return new HttpError(400, 'compile_failed', message, { diagnostics });
}

function routes(deps: VideoApiDeps): VideoRoute[] {
  return [
    {
      method: 'get',
      path: '/api/health',
      summary: 'Health, as seen with a credential',
      responses: { 200: { description: 'Up', schema: healthSchema }, ...errors },
      handle: (req, res) => void res.json({ status: 'ok', timestamp: new Date(deps.platform.clock.now()).toISOString(), orgId: req.principal!.orgId }),
    },
    {
      method: 'post',
      path: '/api/compile',
      summary: 'Compile a script into a render graph (no video is made)',
      scope: 'render:write',
      description:
        'Answers the render graph with warnings; a script with errors answers 400 compile_failed with every diagnostic (level, code, message, line, column) at once. `theme` lays a theme pack over the mood; `preview` compiles for a 360p, 15 fps quick look; `variables` fill the {{name}} placeholders.',
      body: { schema: compileRequestSchema },
      responses: {
        200: { description: 'The render graph and any warnings', schema: compileResponseSchema },
        400: error('compile_failed (diagnostics in the body) or validation_error (the request body itself is wrong)'),
        ...errors,
      },
      handle: (req, res) => {
        const body = parseOr400(compileRequestSchema, req.body, 'compile request');
        const result = compile(body.source, { variables: body.variables, theme: body.theme, preview: body.preview });
        if (!result.ok) throw compileFailed(result.diagnostics);
        res.json({ renderGraph: result.renderGraph, diagnostics: result.diagnostics });
      },
    },
    {
      method: 'get',
      path: '/api/moods',
      summary: 'The built-in moods with their full profiles, and the aliases',
      responses: { 200: { description: 'Moods and aliases', schema: moodListSchema }, ...errors },
      handle: (_req, res) => void res.json({ moods: BUILT_IN_MOODS.map((m) => MOODS[m]), aliases: MOOD_ALIASES }),
    },
    {
      method: 'get',
      path: '/api/moods/:name',
      summary: 'One mood, or the built-in an alias resolves to',
      params: z.object({ name: z.string() }),
      responses: { 200: { description: 'The resolved profile', schema: resolvedMoodSchema }, ...errors, 404: error('Neither a built-in mood nor an alias') },
      handle: (req, res) => {
        const name = String(req.params.name);
        const m = resolveMood(name);
        if (!m) {
          const near = closest(name, moodNames());
          throw notFound(`${name} is not a mood or an alias${near ? `; did you mean ${near}?` : ''}; GET /api/moods lists them`);
        }
        res.json({ name: m.requested, alias: m.alias, resolvesTo: m.profile.name, profile: m.profile });
      },
    },
  ];
}

/** The route's scope and whether it is public, as the OpenAPI document marks them. */
const documented = (r: RouteDoc & { scope?: string }): RouteDoc => ({
  ...r,
  extensions: { ...r.extensions, 'x-public': r.authenticated === false, ...(r.scope ? { 'x-required-scope': r.scope } : {}) },
});

/**
 * The video production service's HTTP routes. Every protected route goes through the one
 * credential resolver (auth/resolver.ts): x-api-key or a bearer token, the route's scope; the
 * organization comes from the credential alone (CONTRACTS.md section 2), `x-org-id` is ignored.
 */
export function videoRouter(deps: VideoApiDeps): Router {
  const { platform } = deps;
  const auth = videoAuth(platform, deps.keys);
  const list = [
    ...routes(deps),
    ...principalRoutes(auth),
    ...oauthRoutes(auth),
    ...mcpRoutes([compileTool]),
    ...demoRoutes({ minter: auth.minter, origins: platform.config.VIDEO_DEMO_ORIGINS, orgId: platform.config.VIDEO_DEMO_ORG }),
  ];
  const document = buildOpenApiDocument(
    {
      title: 'Weir video production',
      version: '0.1.0',
      description:
        'Script compiler, moods, principals, bearer tokens, OAuth client credentials and the MCP agent transport (Document 2). Protected routes take x-api-key or Authorization: Bearer; `x-required-scope` names the scope a route needs and `x-public` marks routes without a credential. Every error answers {status, error, message, request_id} (the OAuth token endpoint answers RFC 6749 errors); a compile failure adds diagnostics.',
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
