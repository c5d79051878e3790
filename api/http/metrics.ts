import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { Histogram, type Registry } from 'prom-client';

/** Records one request's latency when its answer is sent, labelled with `route()` read then. */
export type ObserveRequest = (method: string, res: ServerResponse, route: () => string) => void;

const byRegistry = new WeakMap<Registry, ObserveRequest>();

/** Request latency per method, route pattern and status; route patterns keep label cardinality low. */
export function requestLatency(registry: Registry): ObserveRequest {
  let observe = byRegistry.get(registry);
  if (!observe) {
    const latency = new Histogram({
      name: 'weir_http_request_duration_seconds',
      help: 'HTTP request latency',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
    observe = (method, res, route) => {
      const end = latency.startTimer();
      res.on('finish', () => end({ method, route: route(), status: String(res.statusCode) }));
    };
    byRegistry.set(registry, observe);
  }
  return observe;
}

export function httpMetrics(registry: Registry): RequestHandler {
  const observe = requestLatency(registry);
  return (req, res, next) => {
    observe(req.method, res, () => (req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched'));
    next();
  };
}
