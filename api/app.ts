import type { RequestListener } from 'node:http';
import express, { type Express, type Router } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { httpMetrics, requestLatency } from './http/metrics.js';
import { notFound } from './http/errors.js';
import { withLanes, type LaneRoute } from './http/lane.js';
import { EdgeLimiter, edgeRateLimit } from './http/rate-limit.js';
import { requestWindows } from './http/shared-windows.js';
import type { KeyRing } from './http/auth.js';
import type { WindowStore } from '../infra/windows/types.js';
import type { Clock } from '../infra/clock.js';
import type { HealthReport } from '../infra/health.js';
import { presentError } from './http/present-error.js';
import { requestLog } from './http/request-log.js';

export interface AppOptions {
  log: Logger;
  metrics: Registry;
  routers: Router[];
  /** Hot routes answered ahead of Express (see http/lane.ts). */
  lanes?: LaneRoute[];
  /** The edge's key ring: the rate limit counts a known key by key, anything else by address. */
  keys: KeyRing;
  /** Requests per minute per API key without a rate of its own, and per address without a known key; over it, 429. */
  rateLimit: { perKeyPerMinute: number; perAddressPerMinute: number };
  /** Where keys' request counts are shared with the other API processes; without it they stay in process. */
  windows?: WindowStore;
  clock?: Clock;
  /** Path prefixes whose service applies its own (per-plan) limits. */
  rateLimitExempt?: string[];
  /** False while the process starts or drains: /health answers 503 so balancers stop sending. */
  isReady: () => boolean;
  /** The state of each part (bus, window store, analytics, consumers); one down makes /health a 503. */
  health?: () => Promise<HealthReport>;
}

/** The edge's request listener: the lanes, then Express; both count against one rate limiter. */
export function buildEdge(opts: AppOptions): RequestListener {
  const minute = (limit: number) => ({ limit, windowMs: 60_000 });
  const limiter = new EdgeLimiter({
    keys: opts.keys,
    perKey: minute(opts.rateLimit.perKeyPerMinute),
    perAddress: minute(opts.rateLimit.perAddressPerMinute),
    keyWindows: requestWindows({ store: opts.windows, scope: 'rate:edge', log: opts.log }),
    clock: opts.clock,
  });
  return withLanes(opts.lanes ?? [], { log: opts.log, limiter, observe: requestLatency(opts.metrics) }, buildApp(opts, limiter));
}

/** The Express edge: shared middleware, the service routers, and the fallbacks. */
function buildApp(opts: AppOptions, limiter: EdgeLimiter): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(requestLog(opts.log));
  app.use(httpMetrics(opts.metrics));

  app.get('/health', async (_req, res) => {
    if (!opts.isReady()) return void res.status(503).json({ status: 'starting', timestamp: new Date().toISOString() });
    const report = opts.health ? await opts.health() : { ok: true, parts: {} };
    res.status(report.ok ? 200 : 503).json({ status: report.ok ? 'ok' : 'down', timestamp: new Date().toISOString(), parts: report.parts });
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
