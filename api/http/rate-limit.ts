import { isIPv6 } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { HttpError } from './errors.js';
import type { KeyRing, Principal } from './auth.js';
import { keyDigest, type Rate } from '../../infra/api-keys.js';
import { systemClock, type Clock } from '../../infra/clock.js';

/** One fixed window of one caller: when it started and how many requests it has seen. */
export interface WindowCount {
  start: number;
  count: number;
}

/**
 * Request counts per caller in fixed windows, kept in this process. Windows of idle callers are
 * swept once a minute, and at most `maxEntries` callers are held: beyond that the caller whose
 * window started longest ago is forgotten, so no stream of new callers grows the map without end.
 */
export class FixedWindows {
  private readonly windows = new Map<string, WindowCount>();
  private lastSweep = 0;

  constructor(
    private readonly windowMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  /** Counts one request of `id` at `now`; returns its window (`start` is aligned to the window length). */
  hit(id: string, now: number): WindowCount {
    if (now - this.lastSweep > 60_000) {
      this.lastSweep = now;
      for (const [k, w] of this.windows) if (w.start < now - this.windowMs) this.windows.delete(k);
    }
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    let w = this.windows.get(id);
    if (!w || w.start !== start) {
      if (!w && this.windows.size >= this.maxEntries) this.windows.delete(this.windows.keys().next().value!);
      w = { start, count: 0 };
      this.windows.delete(id); // re-inserted last, so the map stays ordered by window start
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

/** What counts the requests of one window length: in process, or shared through the window store. */
export interface RequestWindows {
  hit(id: string, now: number): WindowCount;
}

export interface EdgeLimits {
  keys: KeyRing;
  /** A known key's allowance unless the key carries its own `rate=` (RATE_LIMIT_PER_MINUTE). */
  perKey: Rate;
  /** Requests without a known key, counted per address (RATE_LIMIT_ANONYMOUS_PER_MINUTE). */
  perAddress: Rate;
  /** Counts keys' requests in windows of one length; the edge shares them across processes (shared-windows.ts). */
  keyWindows(windowMs: number): RequestWindows;
  clock?: Clock;
}

/**
 * The edge-wide limit for every route (Express and lanes alike, so a caller cannot double its
 * allowance by mixing them). A known API key is counted against its own rate, across processes;
 * a request without a key, or with a key the ring does not know, against its address, in process:
 * a fresh random key per request earns nothing, and no caller's key adds state beyond the keys
 * configured. Answers carry the IETF draft-7 `RateLimit` and `RateLimit-Policy` headers; over the
 * limit, a 429.
 */
export class EdgeLimiter {
  private readonly byAddress: FixedWindows;
  private readonly byKey = new Map<number, RequestWindows>();
  private readonly policies = new Map<Rate, string>();
  private readonly clock: Clock;

  constructor(private readonly limits: EdgeLimits) {
    this.byAddress = new FixedWindows(limits.perAddress.windowMs);
    this.clock = limits.clock ?? systemClock;
  }

  /**
   * Counts the request and answers the key's principal (null without a known key); throws a 429
   * HttpError when the caller is over its limit. `digest` is the presented key's `keyDigest`.
   */
  admit(digest: Buffer | undefined, address: string | undefined, res: ServerResponse): Principal | null {
    const now = this.clock.now();
    const principal = digest ? this.limits.keys.verifyDigest(digest) : null;
    let rate: Rate;
    let w: WindowCount;
    if (principal && digest) {
      rate = principal.rate ?? this.limits.perKey;
      w = this.windowsOf(rate.windowMs).hit(digest.toString('hex', 0, 16), now);
    } else {
      rate = this.limits.perAddress;
      w = this.byAddress.hit(addressKey(address ?? 'unknown'), now);
    }
    const resetSeconds = Math.ceil((w.start + rate.windowMs - now) / 1000);
    res.setHeader('RateLimit-Policy', this.policyOf(rate));
    res.setHeader('RateLimit', `limit=${rate.limit}, remaining=${Math.max(0, rate.limit - w.count)}, reset=${resetSeconds}`);
    if (w.count > rate.limit) {
      res.setHeader('Retry-After', String(Math.max(1, resetSeconds)));
      throw new HttpError(429, 'rate_limited', `more than ${rate.limit} requests per ${rate.windowMs === 1000 ? 'second' : 'minute'}; retry later`);
    }
    return principal;
  }

  private windowsOf(windowMs: number): RequestWindows {
    let w = this.byKey.get(windowMs);
    if (!w) this.byKey.set(windowMs, (w = this.limits.keyWindows(windowMs)));
    return w;
  }

  private policyOf(rate: Rate): string {
    let p = this.policies.get(rate);
    if (p === undefined) this.policies.set(rate, (p = `${rate.limit};w=${rate.windowMs / 1000}`));
    return p;
  }
}

/** The edge limiter as Express middleware; paths under `exempt` are limited by their own service. */
export function edgeRateLimit(limiter: EdgeLimiter, exempt: string[]): RequestHandler {
  return (req, res, next) => {
    if (exempt.some((p) => req.path === p || req.path.startsWith(`${p}/`))) return next();
    try {
      const key = req.get('x-api-key');
      limiter.admit(key ? keyDigest(key) : undefined, req.ip, res);
      next();
    } catch (err) {
      next(err);
    }
  };
}
