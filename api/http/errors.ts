/**
 * The typed errors of the edge. Handlers throw these (or let zod/body-parser errors through);
 * `present-error.ts` is the one place that turns them into statuses and bodies.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    /** Machine-readable code, e.g. `validation_error`, `not_found`, `version_conflict`. */
    readonly code: string,
    message: string,
    /** Extra top-level fields of the error body (e.g. `current_version`). */
    readonly extra: Record<string, unknown> = {},
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: unknown) => new HttpError(400, 'validation_error', message, {}, details);
export const unauthorized = (message = 'missing or unknown API key') => new HttpError(401, 'unauthorized', message);
export const forbidden = (message = 'this API key may not act for this organization') => new HttpError(403, 'forbidden', message);
export const notFound = (message: string) => new HttpError(404, 'not_found', message);
export const conflict = (message: string, extra: Record<string, unknown> = {}) => new HttpError(409, 'conflict', message, extra);
/** A one-time code's start over its per-user or per-address limit (one of START_LIMITS). */
export const codeStartsLimited = (limit: { name: string; max: number; windowMs: number }) =>
  new HttpError(429, 'rate_limited', `more than ${limit.max} codes per ${limit.windowMs / 60_000} minutes ${limit.name.replace('_', ' ')}; retry later`, { limit: limit.name });
export const notImplemented = (message: string) => new HttpError(501, 'not_implemented', message);
