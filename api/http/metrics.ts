import type { RequestHandler } from 'express';
import { Histogram, type Registry } from 'prom-client';

/** Request latency per method, route pattern and status; route patterns keep label cardinality low. */
export function httpMetrics(registry: Registry): RequestHandler {
  const latency = new Histogram({
    name: 'weir_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return (req, res, next) => {
    const end = latency.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}
