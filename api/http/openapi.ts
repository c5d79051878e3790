import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import type { ZodObject, ZodType } from 'zod';
import { edgeErrorBody } from '../../schemas/http/edge.js';

/**
 * Builds an OpenAPI 3.0 document from zod schemas, so the document and the request validation share
 * one source. Every service describes its routes this way.
 */

export interface RouteDoc {
  method: 'get' | 'put' | 'post' | 'patch' | 'delete';
  /** Express form (`/v1/counters/:org_id`); converted to `{org_id}`. */
  path: string;
  summary: string;
  description?: string;
  params?: ZodObject;
  query?: ZodObject;
  /** Request headers the route reads (If-Match, Idempotency-Key), beside the credentials. */
  headers?: ZodObject;
  /** The request body; JSON unless `contentType` says otherwise (e.g. a form). `example` is a body the route takes, as an integrator would copy it. */
  body?: { schema: ZodType; description?: string; contentType?: string; example?: unknown };
  responses: Responses;
  /** Whether the route needs the credentials of `security` (default true). */
  authenticated?: boolean;
  /** In a document that accepts bearer tokens: this route takes the header credentials only (403 for a bearer token). */
  apiKeyOnly?: boolean;
  /** OpenAPI specification extensions of the operation, e.g. `x-required-scope`. */
  extensions?: Record<`x-${string}`, unknown>;
}

type Responses = Record<number, { description: string; schema?: ZodType; headers?: ZodObject }>;

export interface DocumentOptions {
  title: string;
  version: string;
  description?: string;
  /** Header credentials every authenticated route needs, e.g. x-org-id and x-api-key. */
  securityHeaders: string[];
  /** The service's error body for a request body over BODY_LIMIT: every route with a body may answer 413. */
  tooLarge: ZodType;
  /** Whether the edge-wide rate limit applies to every route (services with limits of their own document theirs). */
  edgeRateLimit: boolean;
  /** Whether `Authorization: Bearer` is accepted as an alternative to the header credentials. */
  bearer?: boolean;
}

const EDGE_LIMIT: Responses = {
  429: {
    description: 'More requests in this window than the API key\'s rate (its own, else RATE_LIMIT_PER_MINUTE per minute) or, without a known key, than RATE_LIMIT_ANONYMOUS_PER_MINUTE from this address; the RateLimit and RateLimit-Policy headers of every answer say where the caller stands, Retry-After when to retry',
    schema: edgeErrorBody,
  },
};

const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const schemeName = (header: string) => header.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase());

export function buildOpenApiDocument(opts: DocumentOptions, routes: RouteDoc[]): ReturnType<OpenApiGeneratorV3['generateDocument']> {
  const registry = new OpenAPIRegistry();
  for (const header of opts.securityHeaders) {
    registry.registerComponent('securitySchemes', schemeName(header), { type: 'apiKey', in: 'header', name: header });
  }
  const headers = Object.fromEntries(opts.securityHeaders.map((h) => [schemeName(h), [] as string[]]));
  if (opts.bearer) registry.registerComponent('securitySchemes', 'BearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  const securityOf = (r: RouteDoc) => (r.authenticated === false ? [] : opts.bearer && !r.apiKeyOnly ? [headers, { BearerAuth: [] }] : [headers]);
  for (const r of routes) {
    registry.registerPath({
      method: r.method,
      path: toOpenApiPath(r.path),
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      security: securityOf(r),
      ...r.extensions,
      request: {
        ...(r.params ? { params: r.params } : {}),
        ...(r.query ? { query: r.query } : {}),
        ...(r.headers ? { headers: r.headers } : {}),
        ...(r.body ? { body: { description: r.body.description, required: true, content: { [r.body.contentType ?? 'application/json']: { schema: r.body.schema, ...(r.body.example !== undefined ? { example: r.body.example } : {}) } } } } : {}),
      },
      responses: Object.fromEntries(
        Object.entries<Responses[number]>({
          ...r.responses,
          ...(r.body ? { 413: { description: 'The request body is over BODY_LIMIT', schema: opts.tooLarge } } : {}),
          ...(opts.edgeRateLimit ? EDGE_LIMIT : {}),
        }).map(([status, res]) => [
          status,
          { description: res.description, ...(res.headers ? { headers: res.headers } : {}), ...(res.schema ? { content: { 'application/json': { schema: res.schema } } } : {}) },
        ]),
      ),
    });
  }
  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: { title: opts.title, version: opts.version, ...(opts.description ? { description: opts.description } : {}) },
  });
}
