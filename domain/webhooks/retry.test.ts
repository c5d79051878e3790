import { describe, expect, it } from 'vitest';
import { isRetryable, nextAttemptAt, parseRetryAfter, MAX_RETRIES, MAX_RETRY_AFTER_MS } from './retry.js';

const base = { now: 1_000_000, random: 0, baseMs: 1000 };

describe('retry rule', () => {
  it.each([
    [429, true], [408, true], [500, true], [503, true], [599, true],
    [400, false], [401, false], [404, false], [410, false], [301, false], [200, false],
  ])('status %i retryable: %s', (status, retryable) => {
    expect(isRetryable({ status })).toBe(retryable);
  });

  it('retries an attempt without an answer', () => {
    expect(isRetryable({ status: null })).toBe(true);
  });

  it('backs off exponentially from the base, 5 retries at most', () => {
    const delays = [1, 2, 3, 4, 5].map((attempt) => nextAttemptAt({ ...base, attempt, result: { status: 500 } })! - base.now);
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(nextAttemptAt({ ...base, attempt: MAX_RETRIES + 1, result: { status: 500 } })).toBeNull();
    expect(nextAttemptAt({ ...base, attempt: 1, result: { status: 404 } })).toBeNull();
  });

  it('adds at most 20% jitter', () => {
    expect(nextAttemptAt({ ...base, attempt: 2, result: { status: 500 }, random: 0.999 })! - base.now).toBe(2399);
  });

  it('honors a longer Retry-After in seconds or as a date, capped', () => {
    expect(nextAttemptAt({ ...base, attempt: 1, result: { status: 429 }, retryAfter: '7' })! - base.now).toBe(7000);
    expect(nextAttemptAt({ ...base, attempt: 3, result: { status: 429 }, retryAfter: '1' })! - base.now).toBe(4000);
    const date = new Date(base.now + 30_000).toUTCString();
    expect(parseRetryAfter(date, base.now)).toBe(30_000 - (base.now % 1000));
    expect(nextAttemptAt({ ...base, attempt: 1, result: { status: 503 }, retryAfter: '999999' })! - base.now).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('soon', base.now)).toBeUndefined();
  });
});
