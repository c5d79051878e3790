/**
 * When a failed delivery is tried again (Document 3 "Limits"): 429, 408 and 5xx answers, timeouts
 * and network errors are retried up to 5 times with exponential backoff from WEBHOOK_RETRY_BASE_MS,
 * and a Retry-After header is honored; any other answer is final. Pure: the caller passes the
 * clock and the random draw.
 */

/** Retries after the first attempt; attempt numbers run 1 (first) to 6. */
export const MAX_RETRIES = 5;
/** A Retry-After beyond this is capped, so one answer cannot park a delivery for days. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/** Outcome of one attempt as the retry rule sees it: an HTTP status, or no answer at all (timeout, refused, reset). */
export type AttemptResult = { status: number } | { status: null };

export const isSuccess = (r: AttemptResult): boolean => r.status !== null && r.status >= 200 && r.status < 300;

/** Whether a failed attempt may be retried at all (before counting attempts). */
export function isRetryable(r: AttemptResult): boolean {
  if (r.status === null) return true;
  return r.status === 429 || r.status === 408 || r.status >= 500;
}

/**
 * Milliseconds a Retry-After value asks for: delta-seconds or an HTTP date (RFC 9110 10.2.3);
 * undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

export interface RetryInput {
  /** The attempt that just failed (1 = the first). */
  attempt: number;
  result: AttemptResult;
  /** The answer's Retry-After header, if any. */
  retryAfter?: string;
  now: number;
  /** Uniform draw in [0, 1): the jitter. */
  random: number;
  baseMs: number;
}

/**
 * The instant of the next attempt, or null when the failure is final. Backoff is base * 2^(n-1)
 * for the n-th retry, with up to 20% jitter added so a crowd of retries to one receiver spreads;
 * a Retry-After replaces it when longer, capped at MAX_RETRY_AFTER_MS.
 */
export function nextAttemptAt(input: RetryInput): number | null {
  if (!isRetryable(input.result) || input.attempt > MAX_RETRIES) return null;
  const backoff = input.baseMs * 2 ** (input.attempt - 1);
  const jittered = backoff + Math.floor(backoff * 0.2 * input.random);
  const asked = parseRetryAfter(input.retryAfter, input.now);
  const delay = asked === undefined ? jittered : Math.max(jittered, Math.min(asked, MAX_RETRY_AFTER_MS));
  return input.now + delay;
}
