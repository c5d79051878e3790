import type { RequestListener } from 'node:http';
import express, { type Express, type Router } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { httpMetrics, requestLatency } from './http/metrics.js';
import { notFound } from './http/errors.js';
import { withLanes, type LaneRoute } from './http/lane.js';
import { EdgeLimiter, edgeRateLimit } from './http/rate-limit.js';
import { presentError } from './http/present-error.js';
import { requestLog } from './http/request-log.js';

export interface AppOptions {
  log: Logger;
  metrics: Registry;
  routers: Router[];
  /** Hot routes answered ahead of Express (see http/lane.ts). */
  lanes?: LaneRoute[];
  /** Requests per minute per API key (or per address without one); over it, 429. */
  rateLimitPerMinute: number;
  /** Path prefixes whose service applies its own (per-plan) limits. */
  rateLimitExempt?: string[];
  /** False while the process starts or drains: /health answers 503 so balancers stop sending. */
  isReady: () => boolean;
}

/** The edge's request listener: the lanes, then Express; both count against one rate limiter. */
export function buildEdge(opts: AppOptions): RequestListener {
  const limiter = new EdgeLimiter(opts.rateLimitPerMinute);
  return withLanes(opts.lanes ?? [], { log: opts.log, limiter, observe: requestLatency(opts.metrics) }, buildApp(opts, limiter));
}

/** The Express edge: shared middleware, the service routers, and the fallbacks. */
function buildApp(opts: AppOptions, limiter: EdgeLimiter): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(requestLog(opts.log));
  app.use(httpMetrics(opts.metrics));

  app.get('/health', (_req, res) => {
    const ready = opts.isReady();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'starting', timestamp: new Date().toISOString() });
  });
  app.get('/metrics', async (_req, res, next) => {
    try {
      res.type(opts.metrics.contentType).send(await opts.metrics.metrics());
    } catch (err) {
      next(err);
    }
  });

  app.use(edgeRateLimit(limiter, opts.rateLimitExempt ?? []));

  for (const router of opts.routers) app.use(router);

  app.use((req, _res, next) => next(notFound(`no route for ${req.method} ${req.path}`)));
  app.use(presentError('standard'));
  return app;
}
