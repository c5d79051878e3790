import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { HttpError } from './errors.js';
import { UnavailableError } from '../../infra/unavailable.js';
import { QuotaExceededError } from '../../domain/quotas.js';
import { describeZodError } from '../../schemas/zod-error.js';

/**
 * Error body styles. The rule engine answers Document 1's `{statusCode, message, code, timestamp}`;
 * every other service answers `{error, message}` plus its extras (CONTRACTS.md section 2); the risk
 * check always carries `details`, an object (validation issues as `{issues}`).
 */
export type ErrorStyle = 'rule-engine' | 'standard' | 'risk';

interface Normalized {
  status: number;
  code: string;
  message: string;
  extra: Record<string, unknown>;
  details?: unknown;
  retryAfterSeconds?: number;
}

/** body-parser errors carry `type` and `status`; these are the client's fault, with a clear message. */
function fromBodyParser(err: { type?: string; status?: number; expose?: boolean; message?: string }): Normalized | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return { status: 400, code: 'malformed_json', message: `request body is not valid JSON: ${err.message ?? ''}`.trim(), extra: {} };
    case 'entity.too.large':
      return { status: 413, code: 'payload_too_large', message: 'request body exceeds the size limit', extra: {} };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, code: 'unsupported_encoding', message: err.message ?? 'unsupported body encoding', extra: {} };
    default:
      // Untyped but exposed 4xx: a body that does not decode with its Content-Encoding (zlib, brotli).
      if (err.expose === true && err.status === 400) {
        return { status: 400, code: 'malformed_body', message: `request body could not be decoded with its content-encoding: ${err.message ?? ''}`.trim(), extra: {} };
      }
      return null;
  }
}

function normalizeError(err: unknown): Normalized {
  if (err instanceof HttpError) return { status: err.status, code: err.code, message: err.message, extra: err.extra, details: err.details };
  if (err instanceof ZodError) return { status: 400, code: 'validation_error', message: describeZodError(err), extra: {}, details: err.issues };
  if (err instanceof QuotaExceededError) return { status: 400, code: 'quota_exceeded', message: err.message, extra: {} };
  const parser = typeof err === 'object' && err !== null ? fromBodyParser(err as never) : null;
  if (parser) return parser;
  if (err instanceof UnavailableError) return { status: 503, code: 'service_unavailable', message: err.message, extra: {}, retryAfterSeconds: 1 };
  return { status: 500, code: 'internal_error', message: 'internal error', extra: {} };
}

function errorBody(style: ErrorStyle, e: Normalized, requestId: string): Record<string, unknown> {
  if (style === 'rule-engine') {
    return { statusCode: e.status, message: e.message, code: e.status, error: e.code, timestamp: new Date().toISOString(), ...e.extra };
  }
  if (style === 'risk') {
    const details = e.details === undefined ? {} : Array.isArray(e.details) ? { issues: e.details } : e.details;
    return { error: e.code, message: e.message, details, request_id: requestId, ...e.extra };
  }
  return { status: 'error', error: e.code, message: e.message, ...(e.details !== undefined ? { details: e.details } : {}), request_id: requestId, ...e.extra };
}

/** Answers an error in the given style; a 5xx is logged with its stack, never sent. */
export function sendError(res: ServerResponse, style: ErrorStyle, err: unknown, request: { id: string; log: Logger }): void {
  const e = normalizeError(err);
  if (e.status >= 500) request.log.error({ err }, 'request failed');
  const body = JSON.stringify(errorBody(style, e, request.id));
  res.writeHead(e.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(e.retryAfterSeconds !== undefined ? { 'retry-after': String(e.retryAfterSeconds) } : {}),
  });
  res.end(body);
}

/** Express error middleware in the given style. */
export function presentError(style: ErrorStyle): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    sendError(res, style, err, req);
  };
}
