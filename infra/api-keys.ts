import { hash } from 'node:crypto';
import { z } from 'zod';

/** The SHA-256 digest of a presented key: what the key ring looks up, rate limits count by and principals are stored as. */
export const keyDigest = (key: string): Buffer => hash('sha256', key, 'buffer');

export const PLANS = ['starter', 'professional', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** A request allowance: at most `limit` requests per fixed window of `windowMs` (1 s or 1 min). */
export interface Rate {
  limit: number;
  windowMs: number;
}

export interface ApiKeyEntry {
  orgId: string;
  key: string;
  plan: Plan;
  /** The key's own edge rate; without it the key gets RATE_LIMIT_PER_MINUTE. */
  rate?: Rate;
}

const WINDOWS: Record<string, number> = { s: 1000, sec: 1000, min: 60_000 };
const RATE = /^rate=([1-9]\d{0,9})\/(s|sec|min)$/;

/** `rate=500/s` → { limit: 500, windowMs: 1000 }; null when the option is not a rate. */
function parseRate(option: string): Rate | null {
  const m = RATE.exec(option);
  return m ? { limit: Number(m[1]), windowMs: WINDOWS[m[2]!]! } : null;
}

/** `rate=500/s`: how a Rate is written in API_KEYS, and in the RateLimit-Policy header's terms. */
export const formatRate = (r: Rate): string => `${r.limit}/${r.windowMs === 1000 ? 's' : 'min'}`;

const GRAMMAR = `orgId:apiKey[:plan][:rate=N/s|N/min] with plan one of ${PLANS.join(', ')}`;

/**
 * One API_KEYS entry: `orgId:apiKey`, then optional options in any order, each at most once: a plan
 * (screening's limits; default enterprise) and `rate=N/s` or `rate=N/min` (this key's edge limit).
 * The CONTRACTS.md form `orgId:apiKey[:plan]` is the case without a rate.
 */
function parseEntry(item: string): ApiKeyEntry | null {
  const [orgId, key, ...options] = item.split(':');
  if (!orgId || !key || options.length > 2) return null;
  let plan: Plan | undefined;
  let rate: Rate | undefined;
  for (const option of options) {
    const r = parseRate(option);
    if (r && !rate) rate = r;
    else if (!plan && (PLANS as readonly string[]).includes(option)) plan = option as Plan;
    else return null;
  }
  return { orgId, key, plan: plan ?? 'enterprise', ...(rate ? { rate } : {}) };
}

/**
 * API_KEYS, validated whole. Messages name entries by position and never echo one: an entry holds
 * a secret. A key listed twice is refused: given to two organizations it would silently belong to
 * whichever came last, and even for one organization its plan and rate would be ambiguous.
 */
export const apiKeysSchema = z.string().transform((raw, ctx): ApiKeyEntry[] => {
  const entries: ApiKeyEntry[] = [];
  const firstEntryOf = new Map<string, { position: number; orgId: string }>();
  for (const [i, item] of raw.split(',').map((s) => s.trim()).filter(Boolean).entries()) {
    const entry = parseEntry(item);
    if (!entry) {
      ctx.addIssue({ code: 'custom', message: `entry ${i + 1} must be ${GRAMMAR}` });
      continue;
    }
    const earlier = firstEntryOf.get(entry.key);
    if (earlier) {
      const what = earlier.orgId === entry.orgId ? 'twice' : `for two organizations (${earlier.orgId} and ${entry.orgId})`;
      ctx.addIssue({ code: 'custom', message: `entries ${earlier.position} and ${i + 1} list the same key ${what}; a key must appear once` });
      continue;
    }
    firstEntryOf.set(entry.key, { position: i + 1, orgId: entry.orgId });
    entries.push(entry);
  }
  return entries;
});
