import type { RequestHandler } from 'express';
import type { Plan } from '../../infra/config.js';
import type { Clock } from '../../infra/clock.js';
import { keyDigest } from '../../infra/api-keys.js';
import { HttpError } from '../http/errors.js';
import { addressKey, FixedWindows, type RequestWindows, type WindowCount } from '../http/rate-limit.js';

/** Document 3's screening limits per plan: requests per second and per (UTC) day; null is unlimited. */
export const PLAN_LIMITS: Record<Plan, { perSecond: number; perDay: number | null }> = {
  starter: { perSecond: 10, perDay: 10_000 },
  professional: { perSecond: 50, perDay: 100_000 },
  enterprise: { perSecond: 200, perDay: null },
};

const DAY_MS = 86_400_000;

const usage = (limit: number, w: WindowCount, length: number) => ({ limit, used: w.count, reset: w.start + length });

/** Counts of one window length for known keys (shared across processes) and for addresses (in process). */
interface PlanWindows {
  keys: RequestWindows;
  addresses: FixedWindows;
}

/**
 * Fixed-window limits per API key. A known key's counts are shared by every API process through
 * the window store (`keyWindows`, see http/shared-windows.ts), so a plan's limit holds across
 * processes and its day survives a restart; a request without a known key is counted against its
 * address in this process. Every response carries the X-RateLimit headers of the window nearest to
 * exhaustion; over either limit the answer is 429. The headers are set before authentication fails
 * too.
 */
export function planRateLimit(clock: Clock, planOf: (digest: Buffer) => Plan | null, keyWindows: (windowMs: number) => RequestWindows): RequestHandler {
  const windowsOf = (windowMs: number): PlanWindows => ({ keys: keyWindows(windowMs), addresses: new FixedWindows(windowMs) });
  const seconds = windowsOf(1000);
  const days = windowsOf(DAY_MS);
  return (req, res, next) => {
    const now = clock.now();
    const key = req.get('x-api-key');
    const digest = key ? keyDigest(key) : undefined;
    const plan = digest ? planOf(digest) : null;
    // Unknown callers get the smallest allowance: probing keys cannot flood the service.
    const limits = PLAN_LIMITS[plan ?? 'starter'];
    const hit = (w: PlanWindows) => (plan ? w.keys.hit(digest!.toString('hex', 0, 16), now) : w.addresses.hit(addressKey(req.ip ?? 'unknown'), now));
    const perSecond = usage(limits.perSecond, hit(seconds), 1000);
    const perDay = limits.perDay === null ? null : usage(limits.perDay, hit(days), DAY_MS);
    const remaining = (w: { limit: number; used: number }) => Math.max(0, w.limit - w.used);
    const binding = perDay && remaining(perDay) < remaining(perSecond) ? perDay : perSecond;
    res.setHeader('X-RateLimit-Limit', String(binding.limit));
    res.setHeader('X-RateLimit-Remaining', String(remaining(binding)));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(binding.reset / 1000)));
    const over = perSecond.used > perSecond.limit ? perSecond : perDay && perDay.used > perDay.limit ? perDay : null;
    if (over) {
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil((over.reset - now) / 1000))));
      const what = over === perSecond ? `${perSecond.limit} requests per second` : `${perDay!.limit} requests per day`;
      return next(new HttpError(429, 'rate_limited', `rate limit of ${what} for the ${plan ?? 'unauthenticated'} plan exceeded; retry after the reset`));
    }
    next();
  };
}
