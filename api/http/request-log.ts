import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Level, Logger } from 'pino';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: the caller's `x-request-id`, else a new UUID; echoed in the answer. */
    id: string;
    /** The process logger, bound to this request's id. */
    log: Logger;
  }
}

const levelOf = (status: number): Level => (status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug');

/**
 * One line per request, at error for 5xx, info for 4xx and debug otherwise. Only the method, the
 * path, the status and the duration are written: no header, so no credential, ever reaches a log
 * line.
 */
export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const sent = req.headers['x-request-id'];
    const id = (typeof sent === 'string' && sent.slice(0, 128)) || randomUUID();
    res.setHeader('x-request-id', id);
    req.id = id;
    req.log = log.child({ reqId: id });
    const started = performance.now();
    res.on('finish', () => {
      const level = levelOf(res.statusCode);
      if (!log.isLevelEnabled(level)) return;
      req.log[level]({ method: req.method, url: req.originalUrl, status: res.statusCode, ms: Math.round((performance.now() - started) * 10) / 10 }, 'request completed');
    });
    next();
  };
}
