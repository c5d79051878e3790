import { createHash } from 'node:crypto';
import { lru } from 'tiny-lru';
import type { ApplyRequest, EntityReads, EntityRef, SeriesRead, SeriesUpdate } from '../windows/series.js';
import { BASELINE_SESSIONS, FEATURES, type Baseline } from './baseline.js';
import type { SessionFeatures } from './behavior.js';
import type { UserHistory } from './session.js';
import { packFix, unpackFix, type Fix } from './travel.js';

/**
 * What the risk check keeps in the window store, and how it reads and updates it. Scope is the
 * organization; entities:
 *
 *   u:<sha256>    (of the user id) seen, first (negated), v (velocity, 1-minute buckets), geo (packed last position),
 *                 c.<CC> per country seen, d.<device> per device seen (at most MAX_DEVICES), dc, nd
 *                 (new devices, 1-hour buckets over 24 h), ndl, sn (sessions), h.<0-23> (sessions per
 *                 local hour), the baseline sums bn, bm, bmc, bk, bkc, bs, bsc and bd.<device>
 *   ip:<address>  v, u24 (distinct users within 24 h, 1-hour buckets)
 *   em:<sha256>   v
 *   dv:<device>   v, du (distinct users)
 *   wl:<type>:<identifier>  until (whitelist expiry, ms)
 *
 * Once ids (each prefixed with its entity's id): s.<session> per user session, dev.<device> per user
 * device, u.<sha256 of user> per IP (24 h) and per device (SEEN_TTL_MS). A GDPR delete cannot remove once ids (the port keeps them
 * against redelivery), so none holds a user id in clear; they end with their TTL. Everything ends with the store's idle TTL when the entity goes quiet.
 * A user is at most 24 + 2 * MAX_DEVICES + countries + 20 fields; bench/results/risk.md has bytes.
 */

export const MAX_DEVICES = 64;
export const SEEN_TTL_MS = 30 * 86_400_000;
const DAY_ONCE_MS = 86_400_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;

/**
 * Risk state lives in a window-store scope of its own per organization, so its entities and once
 * ids never meet the counters' entities and event ids of the same organization.
 */
export const riskScope = (org: string): string => `risk:${org}`;
/** Once ids are remembered per scope, so each names its entity: one user's id on an IP is not its id on a device. */
const onceFor = (entity: EntityRef, id: string, ttlMs: number) => ({ id: `${entity.id}/${id}`, ttlMs });

export const userEntity = (org: string, userId: string): EntityRef => ({ scope: riskScope(org), id: `u:${digest(userId)}` });
export const ipEntity = (org: string, ip: string): EntityRef => ({ scope: riskScope(org), id: `ip:${ip.toLowerCase()}` });
export const emailEntity = (org: string, email: string): EntityRef => ({ scope: riskScope(org), id: `em:${digest(email.toLowerCase())}` });
export const deviceEntity = (org: string, deviceId: string): EntityRef => ({ scope: riskScope(org), id: `dv:${deviceId}` });
export const whitelistEntity = (org: string, type: string, identifier: string): EntityRef => ({ scope: riskScope(org), id: `wl:${type}:${normalizeIdentifier(type, identifier)}` });

export const normalizeIdentifier = (type: string, identifier: string): string => (type === 'email' || type === 'ip' ? identifier.trim().toLowerCase() : identifier.trim());

const sha = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 32);
/** A check names its user's digest five times, and users and emails recur: recent digests of ids are kept. */
const digests = lru<string>(50_000);
const digest = (s: string): string => {
  let d = digests.get(s);
  if (d === undefined) {
    d = sha(s);
    digests.set(s, d);
  }
  return d;
};

/** A stable id of a device: the fingerprint's fields and the user agent, hashed. */
export function deviceIdOf(device: { user_agent?: string; fingerprint?: Record<string, unknown> } | undefined): string | null {
  if (!device || (device.user_agent === undefined && device.fingerprint === undefined)) return null;
  return sha(canonical({ ua: device.user_agent ?? null, fp: device.fingerprint ?? null }));
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

export interface Keys {
  org: string;
  userId?: string;
  sessionId: string;
  ip?: string;
  email?: string;
  deviceId: string | null;
  country: string | null;
  hour: number;
}

export interface UserState extends UserHistory {
  velocity: number;
  lastFix: Fix | null;
  baseline: Baseline;
  /** The device took part in building the baseline. */
  baselineDevice: boolean;
}

export interface History {
  user: UserState | null;
  ip: { velocity: number; users24h: number } | null;
  email: { velocity: number } | null;
  device: { velocity: number; users: number } | null;
}

const minuteFloor = (now: number, windowMinutes: number) => Math.floor(now / MINUTE) - windowMinutes + 1;
const hourFloor = (now: number) => Math.floor(now / HOUR) - 23;
const near = (h: number) => [(h + 23) % 24, h, (h + 1) % 24];
const BASE_SERIES = ['bn', 'bm', 'bmc', 'bk', 'bkc', 'bs', 'bsc'] as const;

/** The reads of one check, and how their answers become a History. */
export function planReads(k: Keys, now: number, windowMinutes: number): { plans: EntityReads[]; parse(values: (number | null)[][]): History } {
  const v: SeriesRead = { kind: 'sum', series: 'v', floor: minuteFloor(now, windowMinutes) };
  const plans: EntityReads[] = [];
  const slots: (keyof History)[] = [];
  const sum0 = (series: string): SeriesRead => ({ kind: 'sum', series, floor: 0 });
  const max = (series: string): SeriesRead => ({ kind: 'max', series });
  if (k.userId) {
    slots.push('user');
    plans.push({
      entity: userEntity(k.org, k.userId),
      reads: [
        max('seen'), max('first'), v, max('geo'), sum0('sn'), ...near(k.hour).map((h) => sum0(`h.${h}`)),
        max(`d.${k.deviceId ?? '-'}`), sum0('dc'), { kind: 'sum', series: 'nd', floor: hourFloor(now) }, max('ndl'),
        max(`c.${k.country ?? '-'}`), ...BASE_SERIES.map(sum0), max(`bd.${k.deviceId ?? '-'}`),
      ],
    });
  }
  if (k.ip) {
    slots.push('ip');
    plans.push({ entity: ipEntity(k.org, k.ip), reads: [v, { kind: 'sum', series: 'u24', floor: hourFloor(now) }] });
  }
  if (k.email) {
    slots.push('email');
    plans.push({ entity: emailEntity(k.org, k.email), reads: [v] });
  }
  if (k.deviceId) {
    slots.push('device');
    plans.push({ entity: deviceEntity(k.org, k.deviceId), reads: [v, sum0('du')] });
  }
  return {
    plans,
    parse(values) {
      const h: History = { user: null, ip: null, email: null, device: null };
      slots.forEach((slot, i) => {
        const r = values[i]!;
        const n = (j: number) => r[j] ?? 0;
        if (slot === 'user') {
          const [seen, first, vel, geo, sn, h0, h1, h2, dev, dc, nd, ndl, country, bn, bm, bmc, bk, bkc, bs, bsc, bd] = r;
          h.user = {
            seen: seen != null,
            firstSeen: first != null ? -first : null,
            velocity: vel ?? 0,
            lastFix: geo != null ? unpackFix(geo) : null,
            sessions: sn ?? 0,
            sessionsNearHour: (h0 ?? 0) + (h1 ?? 0) + (h2 ?? 0),
            deviceKnown: k.deviceId !== null && dev != null,
            devices: dc ?? 0,
            newDevices24h: nd ?? 0,
            lastNewDeviceAt: ndl ?? null,
            countryKnown: k.country !== null && country != null,
            baseline: {
              sessions: bn ?? 0,
              sums: { mouseSpeed: { sum: bm ?? 0, n: bmc ?? 0 }, keyInterval: { sum: bk ?? 0, n: bkc ?? 0 }, sessionMs: { sum: bs ?? 0, n: bsc ?? 0 } },
            },
            baselineDevice: k.deviceId !== null && bd != null,
          };
        } else if (slot === 'ip') h.ip = { velocity: n(0), users24h: n(1) };
        else if (slot === 'email') h.email = { velocity: n(0) };
        else h.device = { velocity: n(0), users: n(1) };
      });
      return h;
    },
  };
}

/** Which apply requests answer what (the once requests tell whether something is new). */
export interface UpdatePlan {
  requests: ApplyRequest[];
  /** Index of the request whose application means "new session", "new device for the user", "new user for the device". */
  newSession: number | null;
  newUserOnDevice: number | null;
  newUserOnIp: number | null;
}

/** The updates of one check at `now`, given what was read before. */
export function planUpdates(k: Keys, now: number, h: History, features: SessionFeatures, fix: Fix | null): UpdatePlan {
  const minute = Math.floor(now / MINUTE);
  const hour = Math.floor(now / HOUR);
  // Updates keep buckets of the longest velocity window any configuration may name (1 day).
  const v: SeriesUpdate = { kind: 'sum', series: 'v', bucket: minute, delta: 1, floor: minute - 1439 };
  const requests: ApplyRequest[] = [];
  const plan: UpdatePlan = { requests, newSession: null, newUserOnDevice: null, newUserOnIp: null };
  const add0 = (series: string, delta = 1): SeriesUpdate => ({ kind: 'sum', series, bucket: 0, delta, floor: 0 });
  if (k.userId && h.user) {
    const user = userEntity(k.org, k.userId);
    const updates: SeriesUpdate[] = [{ kind: 'max', series: 'seen', value: now }, { kind: 'max', series: 'first', value: -now }, v];
    if (fix) updates.push({ kind: 'max', series: 'geo', value: packFix(fix) });
    if (k.country) updates.push({ kind: 'max', series: `c.${k.country}`, value: now });
    if (k.deviceId && (h.user.deviceKnown || h.user.devices < MAX_DEVICES)) updates.push({ kind: 'max', series: `d.${k.deviceId}`, value: now });
    requests.push({ entity: user, updates });
    if (k.deviceId && !h.user.deviceKnown) {
      requests.push({
        entity: user,
        updates: [add0('dc'), { kind: 'sum', series: 'nd', bucket: hour, delta: 1, floor: hour - 23 }, { kind: 'max', series: 'ndl', value: now }],
        once: onceFor(user, `dev.${k.deviceId}`, SEEN_TTL_MS),
      });
    }
    const session: SeriesUpdate[] = [add0('sn'), add0(`h.${k.hour}`)];
    if (h.user.baseline.sessions < BASELINE_SESSIONS) {
      session.push(add0('bn'));
      const sums: Record<(typeof FEATURES)[number], [string, string]> = { mouseSpeed: ['bm', 'bmc'], keyInterval: ['bk', 'bkc'], sessionMs: ['bs', 'bsc'] };
      for (const f of FEATURES) {
        const x = features[f];
        if (x !== undefined) session.push(add0(sums[f][0], x), add0(sums[f][1]));
      }
      if (k.deviceId) session.push({ kind: 'max', series: `bd.${k.deviceId}`, value: now });
    }
    plan.newSession = requests.length;
    requests.push({ entity: user, updates: session, once: onceFor(user, `s.${k.sessionId}`, SEEN_TTL_MS) });
  }
  if (k.ip) {
    const ip = ipEntity(k.org, k.ip);
    requests.push({ entity: ip, updates: [v] });
    if (k.userId) {
      plan.newUserOnIp = requests.length;
      requests.push({ entity: ip, updates: [{ kind: 'sum', series: 'u24', bucket: hour, delta: 1, floor: hour - 23 }], once: onceFor(ip, `u.${digest(k.userId)}`, DAY_ONCE_MS) });
    }
  }
  if (k.email) requests.push({ entity: emailEntity(k.org, k.email), updates: [v] });
  if (k.deviceId) {
    const dev = deviceEntity(k.org, k.deviceId);
    requests.push({ entity: dev, updates: [v] });
    if (k.userId) {
      plan.newUserOnDevice = requests.length;
      requests.push({ entity: dev, updates: [add0('du')], once: onceFor(dev, `u.${digest(k.userId)}`, SEEN_TTL_MS) });
    }
  }
  return plan;
}
