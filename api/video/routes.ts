import type { Router } from 'express';
import { videoErrorSchema } from '../../schemas/http/video.js';
import { authenticate } from '../http/auth.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import { serviceRouter } from '../http/service-router.js';
import { assetRoutes } from './assets.js';
import { compileRoutes } from './compile.js';
import type { VideoApiDeps } from './deps.js';
import { renderRoutes } from './render.js';
import type { VideoRoute } from './route.js';
import { templateRoutes } from './templates.js';

export type { VideoApiDeps } from './deps.js';

export const VIDEO_OPENAPI_PATH = '/api/openapi.json';

/** Every area's routes, in the order the OpenAPI document lists them. */
const areas: ((deps: VideoApiDeps) => VideoRoute[])[] = [compileRoutes, renderRoutes, templateRoutes, assetRoutes];

/**
 * The video production service's HTTP routes. The organization comes from the credential alone
 * (CONTRACTS.md section 2); `x-org-id` is ignored. Routes marked `authenticated: false` are public.
 */
export function videoRouter(deps: VideoApiDeps): Router {
  const list = areas.flatMap((area) => area(deps));
  const document = buildOpenApiDocument(
    {
      title: 'Weir video production',
      version: '0.2.0',
      description:
        'Script compiler, moods, rendering to MP4 (jobs on a queue served by render workers), templates and assets (Document 2). Every error answers {status, error, message, request_id}; a compile failure adds diagnostics.',
      securityHeaders: ['x-api-key'],
      tooLarge: videoErrorSchema,
      edgeRateLimit: true,
    },
    [...list, { method: 'get', path: VIDEO_OPENAPI_PATH, summary: 'This document', authenticated: false, responses: { 200: { description: 'OpenAPI 3.0 document' } } }],
  );
  return serviceRouter(
    {
      style: 'standard',
      bodyLimit: deps.platform.config.BODY_LIMIT,
      prefixes: ['/api/health', '/api/compile', '/api/moods', '/api/render', '/api/video', '/api/queue', '/api/templates', '/api/assets', '/assets', VIDEO_OPENAPI_PATH],
    },
    (r) => {
      r.get(VIDEO_OPENAPI_PATH, (_req, res) => void res.json(document));
      for (const route of list) {
        if (route.authenticated === false) r[route.method](route.path, (req, res) => route.handle(req, res));
        else r[route.method](route.path, authenticate(deps.keys), (req, res) => route.handle(req, res));
      }
    },
  );
}
