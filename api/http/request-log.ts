import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
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
 * Gives a request its id (echoed in `x-request-id`) and a logger bound to it, and writes one line
 * when the answer is sent: at error for 5xx, info for 4xx and debug otherwise. Only the method, the
 * path, the status and the duration are written: no header, so no credential, ever reaches a log
 * line. Shared by Express (`requestLog`) and the lanes.
 */
export function beginRequest(log: Logger, req: IncomingMessage, res: ServerResponse): { id: string; log: Logger } {
  const sent = req.headers['x-request-id'];
  const id = (typeof sent === 'string' && sent.slice(0, 128)) || randomUUID();
  res.setHeader('x-request-id', id);
  const reqLog = log.child({ reqId: id });
  const { method, url } = req; // routers rewrite req.url while they run
  const started = performance.now();
  res.on('finish', () => {
    const level = levelOf(res.statusCode);
    if (!log.isLevelEnabled(level)) return;
    reqLog[level]({ method, url, status: res.statusCode, ms: Math.round((performance.now() - started) * 10) / 10 }, 'request completed');
  });
  return { id, log: reqLog };
}

export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const begun = beginRequest(log, req, res);
    req.id = begun.id;
    req.log = begun.log;
    next();
  };
}
