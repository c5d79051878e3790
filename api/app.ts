import express, { type Express, type Router } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { httpMetrics } from './http/metrics.js';
import { notFound } from './http/errors.js';
import { digestKey } from './http/auth.js';
import { presentError } from './http/present-error.js';
import { requestLog } from './http/request-log.js';

export interface AppOptions {
  log: Logger;
  metrics: Registry;
  routers: Router[];
  /** Requests per minute per API key (or per address without one); over it, 429. */
  rateLimitPerMinute: number;
  /** Path prefixes whose service applies its own (per-plan) limits. */
  rateLimitExempt?: string[];
  /** False while the process starts or drains: /health answers 503 so balancers stop sending. */
  isReady: () => boolean;
}

/** The Express edge: shared middleware, the service routers, and the fallbacks. */
export function buildApp(opts: AppOptions): Express {
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

  app.use(
    rateLimit({
      windowMs: 60_000,
      limit: opts.rateLimitPerMinute,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      skip: (req) => (opts.rateLimitExempt ?? []).some((p) => req.path === p || req.path.startsWith(`${p}/`)),
      keyGenerator: (req) => {
        const key = req.get('x-api-key');
        return key ? `k:${digestKey(key)}` : `a:${ipKeyGenerator(req.ip ?? '0.0.0.0')}`;
      },
      handler: (_req, res) => {
        res.status(429).json({ status: 'error', error: 'rate_limited', message: `more than ${opts.rateLimitPerMinute} requests per minute; retry later` });
      },
    }),
  );

  for (const router of opts.routers) app.use(router);

  app.use((req, _res, next) => next(notFound(`no route for ${req.method} ${req.path}`)));
  app.use(presentError('standard'));
  return app;
}
