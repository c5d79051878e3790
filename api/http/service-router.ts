import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { KeyRing } from './auth.js';
import { unauthorized } from './errors.js';
import { jsonBody } from './json-body.js';
import { buildOpenApiDocument, type DocumentOptions, type RouteDoc } from './openapi.js';
import { presentError, type ErrorStyle } from './present-error.js';

export interface ServiceRouterOptions {
  style: ErrorStyle;
  bodyLimit: string;
  /** Path prefixes the service owns (e.g. `/v1/counters`); other requests pass by untouched. */
  prefixes: string[];
  /** When set, a request with a body must carry a key of this ring in `x-api-key` before its body is read. */
  keys?: KeyRing;
}

/** A body may follow: a length above zero, or a chunked transfer (as type-is's hasBody reads it). */
const hasBody = (req: Request): boolean => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * Refuses a request with a body and no known key before the body is read: parsing up to BODY_LIMIT
 * of JSON costs the edge more than checking a key, so an unknown caller never gets the parse.
 * Bodiless requests go on to the routes, which authenticate (or serve public documents).
 */
function keyBeforeBody(keys: KeyRing): RequestHandler {
  return (req, _res, next) => next(hasBody(req) && !keys.verify(req.get('x-api-key')) ? unauthorized() : undefined);
}

/**
 * A service's router: for its own paths only, its own JSON body parser and its own error presenter,
 * so malformed or oversized bodies and thrown errors answer in that service's error style.
 * Express 5 forwards rejected promises of async handlers to the presenter.
 */
export function serviceRouter(opts: ServiceRouterOptions, define: (r: Router) => void): Router {
  const owns = (p: string) => opts.prefixes.some((prefix) => p === prefix || p.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`));
  const outer = Router();
  const inner = Router();
  define(inner);
  outer.use((req, _res, next) => (owns(req.path) ? next() : next('router')));
  if (opts.keys) outer.use(keyBeforeBody(opts.keys));
  outer.use(jsonBody(opts.bodyLimit), inner, presentError(opts.style));
  return outer;
}

/** A route as a service lists it: its documentation and its handler. */
export type DocumentedRoute = RouteDoc & { handle: (req: Request, res: Response) => Promise<void> | void };

export interface DocumentedRouterOptions extends ServiceRouterOptions {
  document: DocumentOptions;
  /** Where the document is served, without credentials (it lists itself). */
  documentPath: string;
  routes: DocumentedRoute[];
  /** Routes the service serves on its own in `define` (health, aliases): documented, not mounted here. */
  alsoDocumented?: RouteDoc[];
  /** What an authenticated route runs before its handler; routes with `authenticated: false` skip it. */
  guard: RequestHandler[];
  /** Each route is also mounted under this prefix (risk answers bare and under /risk). */
  alsoUnder?: string;
  define?: (r: Router) => void;
}

/**
 * A service's router built from its route list: the OpenAPI document generated from the same list
 * and served at `documentPath`, each route mounted behind the guard. The list is the one place a
 * route is declared, so the document cannot miss a mounted route or name one that is not.
 */
export function documentedRouter(opts: DocumentedRouterOptions): Router {
  const self: RouteDoc = { method: 'get', path: opts.documentPath, summary: 'This document', authenticated: false, responses: { 200: { description: 'OpenAPI 3.0 document' } } };
  const document = buildOpenApiDocument(opts.document, [...opts.routes, ...(opts.alsoDocumented ?? []), self]);
  return serviceRouter(opts, (r) => {
    r.get(opts.documentPath, (_req, res) => void res.json(document));
    opts.define?.(r);
    for (const route of opts.routes) {
      const handlers = route.authenticated === false ? [] : opts.guard;
      const handle: RequestHandler = async (req, res) => route.handle(req, res);
      r[route.method](route.path, ...handlers, handle);
      if (opts.alsoUnder) r[route.method](`${opts.alsoUnder}${route.path}`, ...handlers, handle);
    }
  });
}
