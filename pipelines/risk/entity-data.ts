import { createHash } from 'node:crypto';
import type { Platform } from '../../infra/platform.js';
import { deviceEntity, emailEntity, ipEntity, riskScope, userEntity } from '../../domain/risk/state.js';
import { startCounter } from '../one-time-codes.js';
import { CHALLENGE_PURPOSE, challengeEntity } from './challenges.js';
import { fromClickHouseTime } from './ch-time.js';
import type { WhitelistStore } from './whitelist-store.js';

/** Sessions seen within this window are listed as active. */
const ACTIVE_MS = 86_400_000;

/** Marks a deleted user: records of that user created before `at` and still in the topic are dropped by the pipeline. */
export const tombstoneEntity = (org: string, userId: string) => ({ scope: riskScope(org), id: `gdpr:${createHash('sha256').update(userId).digest('hex').slice(0, 32)}` });
/** Long enough for any record still in the topic to be consumed. */
export const TOMBSTONE_SERIES = 'at';

interface Identifiers {
  requestIds: string[];
  emails: string[];
  ips: string[];
  phones: string[];
  devices: string[];
  challenges: string[];
}

export type EntityData = ReturnType<typeof createEntityData>;

/**
 * A user's data across the stores: sessions (from the checks in ClickHouse), GDPR export and
 * GDPR delete. The user is the check's context.user_id; with the user go the emails, IPs, phones
 * and devices of the user's checks, their window-store state, the whitelist entries naming them
 * and the risk webhook deliveries of their checks (messages and attempts).
 */
export function createEntityData(deps: { platform: Platform; whitelist: WhitelistStore }) {
  const { analytics, windows, clock } = deps.platform;

  async function rows<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const rs = await analytics.query({ query, query_params: params, format: 'JSONEachRow' });
    return rs.json<T>();
  }

  async function identifiers(org: string, user: string): Promise<Identifiers> {
    const [r] = await rows<{ r: string[]; e: string[]; i: string[]; p: string[]; d: string[] }>(
      `SELECT groupUniqArray(request_id) AS r, groupUniqArray(assumeNotNull(email)) AS e, groupUniqArray(assumeNotNull(ip)) AS i,
              groupUniqArray(assumeNotNull(phone)) AS p, groupUniqArray(assumeNotNull(device_id)) AS d
       FROM risk_checks FINAL WHERE org_id = {org:String} AND user_id = {user:String}`,
      { org, user },
    );
    const ch = await rows<{ challenge_id: string }>('SELECT challenge_id FROM risk_challenges FINAL WHERE org_id = {org:String} AND (user_id = {user:String} OR request_id IN {ids:Array(String)})', {
      org,
      user,
      ids: r?.r ?? [],
    });
    const clean = (xs: string[] | undefined) => (xs ?? []).filter((x) => x !== '');
    return { requestIds: clean(r?.r), emails: clean(r?.e), ips: clean(r?.i), phones: clean(r?.p), devices: clean(r?.d), challenges: ch.map((c) => c.challenge_id) };
  }

  /**
   * The risk.high / risk.low deliveries of the user's checks (their payload carries user_id and
   * session_id): ids of the rows of `webhook_messages`, whose `webhook_deliveries` share the
   * delivery id. None when the webhooks service's tables are not in this database.
   */
  async function webhookDeliveryIds(org: string, user: string, ids: Identifiers): Promise<string[]> {
    const present = await rows<{ name: string }>("SELECT name FROM system.tables WHERE database = currentDatabase() AND name = 'webhook_messages'", {});
    if (present.length === 0) return [];
    const found = await rows<{ delivery_id: string }>(
      `SELECT DISTINCT delivery_id FROM webhook_messages WHERE org_id = {org:String} AND event IN ('risk.high', 'risk.low')
         AND (JSONExtractString(payload, 'user_id') = {user:String} OR JSONExtractString(payload, 'request_id') IN {ids:Array(String)})`,
      { org, user, ids: ids.requestIds },
    );
    return found.map((r) => r.delivery_id);
  }

  const whitelistIds = (user: string, ids: Identifiers) => [user, ...ids.emails.map((e) => e.toLowerCase()), ...ids.ips.map((i) => i.toLowerCase()), ...ids.phones, ...ids.devices];

  async function userState(org: string, user: string) {
    const [seen, first, sessions, devices, bn, bm, bmc, bk, bkc, bs, bsc] = await windows.read(userEntity(org, user), [
      { kind: 'max', series: 'seen' },
      { kind: 'max', series: 'first' },
      ...['sn', 'dc', 'bn', 'bm', 'bmc', 'bk', 'bkc', 'bs', 'bsc'].map((series) => ({ kind: 'sum' as const, series, floor: 0 })),
    ]);
    const mean = (sum: number | null | undefined, n: number | null | undefined) => (n ? (sum ?? 0) / n : null);
    return {
      first_seen: first != null ? new Date(-first).toISOString() : null,
      last_seen: seen != null ? new Date(seen).toISOString() : null,
      sessions: sessions ?? 0,
      devices: devices ?? 0,
      baseline: { sessions: bn ?? 0, mouse_speed: mean(bm, bmc), keystroke_interval_ms: mean(bk, bkc), session_ms: mean(bs, bsc) },
    };
  }

  return {
    async sessions(org: string, user: string) {
      const since = new Date(clock.now() - ACTIVE_MS).toISOString();
      const list = await rows<{ session_id: string; device_id: string | null; started_at: string; last_seen_at: string; checks: string | number; ip: string | null; country: string | null; last_outcome: string }>(
        `SELECT coalesce(session_id, request_id) AS session_id, any(device_id) AS device_id, min(created_at) AS started_at, max(created_at) AS last_seen_at,
                count() AS checks, argMax(ip, created_at) AS ip, argMax(country, created_at) AS country, argMax(outcome, created_at) AS last_outcome
         FROM risk_checks FINAL WHERE org_id = {org:String} AND user_id = {user:String} AND created_at >= parseDateTime64BestEffort({since:String}, 3)
         GROUP BY session_id ORDER BY last_seen_at DESC LIMIT 100`,
        { org, user, since },
      );
      return list.map((s) => ({ ...s, checks: Number(s.checks), started_at: fromClickHouseTime(s.started_at), last_seen_at: fromClickHouseTime(s.last_seen_at) }));
    },

    async export(org: string, user: string) {
      const ids = await identifiers(org, user);
      const deliveries = await webhookDeliveryIds(org, user, ids);
      const params = { org, user, ids: ids.requestIds, ch: ids.challenges, deliveries };
      const [checks, feedback, overrides, challenges, whitelist, state, webhookMessages, webhookDeliveries] = await Promise.all([
        rows<Record<string, unknown> & { payload: string }>('SELECT * FROM risk_checks FINAL WHERE org_id = {org:String} AND user_id = {user:String} ORDER BY created_at', params),
        rows('SELECT * FROM risk_feedback FINAL WHERE org_id = {org:String} AND request_id IN {ids:Array(String)} ORDER BY received_at', params),
        rows('SELECT * FROM risk_overrides FINAL WHERE org_id = {org:String} AND request_id IN {ids:Array(String)} ORDER BY at', params),
        rows('SELECT challenge_id, request_id, type, created_at, expires_at FROM risk_challenges FINAL WHERE org_id = {org:String} AND challenge_id IN {ch:Array(String)}', params),
        deps.whitelist.entriesFor(org, whitelistIds(user, ids)),
        userState(org, user),
        deliveries.length === 0 ? [] : rows<Record<string, unknown> & { payload: string }>('SELECT * FROM webhook_messages FINAL WHERE org_id = {org:String} AND delivery_id IN {deliveries:Array(String)} ORDER BY created_at', params),
        deliveries.length === 0 ? [] : rows('SELECT * FROM webhook_deliveries WHERE org_id = {org:String} AND delivery_id IN {deliveries:Array(String)} ORDER BY attempted_at', params),
      ]);
      return {
        entity_id: user,
        exported_at: new Date(clock.now()).toISOString(),
        checks: checks.map((c) => ({ ...c, payload: JSON.parse(c.payload) as unknown })),
        feedback,
        overrides,
        challenges,
        whitelist,
        devices: ids.devices,
        state,
        webhook_messages: webhookMessages.map((m) => ({ ...m, payload: JSON.parse(m.payload) as unknown })),
        webhook_deliveries: webhookDeliveries,
      };
    },

    async delete(org: string, user: string) {
      const now = clock.now();
      // First the tombstone: records of this user still in the topic are dropped, not written back.
      await windows.apply([{ entity: tombstoneEntity(org, user), updates: [{ kind: 'max', series: TOMBSTONE_SERIES, value: now }] }]);
      const ids = await identifiers(org, user);
      const sync = { mutations_sync: '2' } as const;
      const del = (table: string, where: string, params: Record<string, unknown>) =>
        analytics.command({ query: `ALTER TABLE ${table} DELETE WHERE org_id = {org:String} AND (${where})`, query_params: { org, ...params }, clickhouse_settings: sync });
      const deliveries = await webhookDeliveryIds(org, user, ids);
      const params = { user, ids: ids.requestIds, ch: ids.challenges, deliveries };
      if (deliveries.length > 0) {
        await del('webhook_deliveries', 'delivery_id IN {deliveries:Array(String)}', params);
        await del('webhook_messages', 'delivery_id IN {deliveries:Array(String)}', params);
      }
      await del('risk_feedback', 'request_id IN {ids:Array(String)} OR user_id = {user:String}', params);
      await del('risk_overrides', 'request_id IN {ids:Array(String)} OR user_id = {user:String}', params);
      await del('risk_challenges', 'challenge_id IN {ch:Array(String)} OR user_id = {user:String}', params);
      await del('risk_checks', 'user_id = {user:String}', params);
      await deps.whitelist.purge(org, whitelistIds(user, ids));
      await Promise.all([
        windows.deleteEntity(userEntity(org, user)),
        ...ids.emails.map((e) => windows.deleteEntity(emailEntity(org, e))),
        ...ids.ips.map((i) => windows.deleteEntity(ipEntity(org, i))),
        ...ids.devices.map((d) => windows.deleteEntity(deviceEntity(org, d))),
        ...ids.challenges.map((c) => windows.deleteEntity(challengeEntity(org, c))),
        // Start counters are keyed by digests and expire within minutes, but a digest still names the user.
        windows.deleteEntity(startCounter(org, CHALLENGE_PURPOSE, 'u', user)),
        ...[...ids.emails, ...ids.phones].map((a) => windows.deleteEntity(startCounter(org, CHALLENGE_PURPOSE, 'a', a))),
      ]);
      return {
        entity_id: user,
        deleted_at: new Date(now).toISOString(),
        deleted: { checks: ids.requestIds.length, challenges: ids.challenges.length, webhook_deliveries: deliveries.length, emails: ids.emails.length, ips: ids.ips.length, phones: ids.phones.length, devices: ids.devices.length },
      };
    },
  };
}
