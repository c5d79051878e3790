import { Router } from 'express';
import { jsonBody } from './json-body.js';
import { presentError, type ErrorStyle } from './present-error.js';

export interface ServiceRouterOptions {
  style: ErrorStyle;
  bodyLimit: string;
  /** Path prefixes the service owns (e.g. `/v1/counters`); other requests pass by untouched. */
  prefixes: string[];
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
  outer.use(jsonBody(opts.bodyLimit), inner, presentError(opts.style));
  return outer;
}
