import type { ApplyRequest, SeriesRead } from './types.js';

/**
 * Input checks shared by both window stores. They run before anything is written: a Redis script
 * that fails half-way keeps its earlier writes, and a NaN in process would poison a total for good.
 */

/** Idle entities disappear after this long without an update: longer than the longest window (90 days). */
export const DEFAULT_IDLE_TTL_MS = 100 * 86_400_000;

function fail(what: string, value: unknown): never {
  throw new TypeError(`window store: ${what} (got ${JSON.stringify(value)})`);
}

export function checkInteger(what: string, v: number): void {
  if (!Number.isSafeInteger(v)) fail(`${what} must be a safe integer`, v);
}

export function checkFinite(what: string, v: number): void {
  if (!Number.isFinite(v)) fail(`${what} must be a finite number`, v);
}

/**
 * Largest sum delta: beyond it a running total could overflow to infinity, which no later step
 * subtracts back out (on Redis, a script would store it after the once id is claimed). Producers' values are bounded the same
 * (schemas/http/bounds.ts); this refuses anything else before a write.
 */
export const MAX_SUM_DELTA = 1e15;

export function checkPositive(what: string, v: number): void {
  if (!Number.isSafeInteger(v) || v <= 0) fail(`${what} must be a positive integer`, v);
}

export function checkApply(requests: ApplyRequest[]): void {
  for (const r of requests) {
    if (r.once) checkPositive('once.ttlMs', r.once.ttlMs);
    for (const u of r.updates) {
      if (u.kind === 'sum') {
        checkInteger('sum update bucket', u.bucket);
        checkInteger('sum update floor', u.floor);
        if (!(Math.abs(u.delta) <= MAX_SUM_DELTA)) fail(`sum update delta must be a finite number of at most ${MAX_SUM_DELTA} in magnitude`, u.delta);
      } else {
        checkFinite('max update value', u.value);
      }
    }
  }
}

export function checkReads(reads: SeriesRead[]): void {
  for (const r of reads) if (r.kind !== 'max') checkInteger(`${r.kind} read floor`, r.floor);
}
