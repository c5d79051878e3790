import { isIPv6 } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { HttpError } from './errors.js';
import { keyDigest } from './auth.js';

const MINUTE_MS = 60_000;

/** One fixed window of one caller: when it started and how many requests it has seen. */
export interface WindowCount {
  start: number;
  count: number;
}

/**
 * Request counts per caller in fixed windows, kept in this process. Windows of idle callers are
 * swept once a minute, so the map stays as small as the set of active callers.
 */
export class FixedWindows {
  private readonly windows = new Map<string, WindowCount>();
  private lastSweep = 0;

  constructor(private readonly windowMs: number) {}

  /** Counts one request of `id` at `now`; returns its window (`start` is aligned to the window length). */
  hit(id: string, now: number): WindowCount {
    if (now - this.lastSweep > 60_000) {
      this.lastSweep = now;
      for (const [k, w] of this.windows) if (w.start < now - this.windowMs) this.windows.delete(k);
    }
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    let w = this.windows.get(id);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(id, w);
    }
    w.count++;
    return w;
  }
}

/**
 * IPv6 callers are counted per /56, the smallest block a provider commonly hands out: one caller can
 * use every address of its block, so counting per address would not limit it at all.
 */
export function addressKey(address: string): string {
  if (!isIPv6(address) || address.startsWith('::ffff:')) return address.replace(/^::ffff:/, '');
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right].map((g) => parseInt(g, 16));
  return `${groups.slice(0, 3).map((g) => g.toString(16)).join(':')}:${(groups[3]! & 0xff00).toString(16)}::/56`;
}

/** The caller a request counts against: its API key (by its `keyDigest`), else its address. */
export const callerOf = (digest: Buffer | undefined, address: string | undefined): string => (digest ? `k:${digest.toString('hex')}` : `a:${addressKey(address ?? 'unknown')}`);

/**
 * The edge-wide limit: requests per minute per caller, for every route (Express and lanes alike, so
 * a caller cannot double its allowance by mixing them). Answers carry the IETF draft-7 `RateLimit`
 * and `RateLimit-Policy` headers; over the limit, a 429.
 */
export class EdgeLimiter {
  private readonly windows = new FixedWindows(MINUTE_MS);
  private readonly policy: string;

  constructor(private readonly perMinute: number) {
    this.policy = `${perMinute};w=60`;
  }

  /** Counts the request; throws a 429 HttpError when the caller is over its limit. */
  admit(caller: string, res: ServerResponse): void {
    const now = Date.now();
    const w = this.windows.hit(caller, now);
    const resetSeconds = Math.ceil((w.start + MINUTE_MS - now) / 1000);
    res.setHeader('RateLimit-Policy', this.policy);
    res.setHeader('RateLimit', `limit=${this.perMinute}, remaining=${Math.max(0, this.perMinute - w.count)}, reset=${resetSeconds}`);
    if (w.count > this.perMinute) {
      res.setHeader('Retry-After', String(Math.max(1, resetSeconds)));
      throw new HttpError(429, 'rate_limited', `more than ${this.perMinute} requests per minute; retry later`);
    }
  }
}

/** The edge limiter as Express middleware; paths under `exempt` are limited by their own service. */
export function edgeRateLimit(limiter: EdgeLimiter, exempt: string[]): RequestHandler {
  return (req, res, next) => {
    if (exempt.some((p) => req.path === p || req.path.startsWith(`${p}/`))) return next();
    try {
      const key = req.get('x-api-key');
      limiter.admit(callerOf(key ? keyDigest(key) : undefined, req.ip), res);
      next();
    } catch (err) {
      next(err);
    }
  };
}
