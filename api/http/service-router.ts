import { Router, type Request, type RequestHandler } from 'express';
import type { KeyRing } from './auth.js';
import { unauthorized } from './errors.js';
import { jsonBody } from './json-body.js';
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
