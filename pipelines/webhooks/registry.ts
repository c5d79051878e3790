import { randomBytes } from 'node:crypto';
import type { Analytics, Migration } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import { RefreshingCache } from '../../infra/refreshing-cache.js';
import type { EventName } from '../../domain/webhooks/catalogue.js';
import type { RegistrationFilter } from '../../domain/webhooks/filter.js';
import type { SigningSecrets } from '../../domain/webhooks/signing.js';
import type { SecretBox } from './secret-box.js';
import { QuotaExceededError } from '../../domain/quotas.js';

/**
 * Webhook registrations and each organization's catch-all address, in ClickHouse (one row per
 * version, ReplacingMergeTree keeps the newest) with a per-organization cache in process: the
 * delivery workers read a target at every attempt, and a change made by another process is seen
 * within CACHE_MS. Changes made in this process are seen at once.
 */

const CACHE_MS = 1_000;

export const registryMigration: Migration = {
  id: 'webhooks-001-registry',
  statements: [
    `CREATE TABLE IF NOT EXISTS webhook_registrations (
      org_id String,
      id String,
      record String,
      deleted UInt8,
      version UInt64,
      updated_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, id)`,
    `CREATE TABLE IF NOT EXISTS webhook_org_config (
      org_id String,
      key String,
      value Nullable(String),
      version UInt64,
      updated_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, key)`,
  ],
};

/** A registration as stored; secrets sealed (secret-box.ts). */
export interface Registration {
  id: string;
  org_id: string;
  event: EventName;
  url: string;
  filter: RegistrationFilter | null;
  auto_payload: Record<string, unknown> | null;
  enabled: boolean;
  standard_webhooks: boolean;
  created_at: string;
  updated_at: string;
  disabled_reason: string | null;
  secret: string | null;
  previous_secret: string | null;
  /** Until when (ms) the previous secret signs too. */
  previous_until: number | null;
  /** Set on the registrations the risk webhook configuration keeps (absent on records written before it existed). */
  managed_by?: ManagedBy | null;
}

/** Who keeps a registration besides its organization's own calls. */
export type ManagedBy = 'risk_webhook_config';

export interface RegistrationInput {
  event: EventName;
  url: string;
  secret?: string;
  filter?: RegistrationFilter;
  auto_payload?: Record<string, unknown>;
  standard_webhooks?: boolean;
}

export interface RegistrationChange {
  event?: EventName;
  url?: string;
  secret?: string | null;
  filter?: RegistrationFilter | null;
  auto_payload?: Record<string, unknown> | null;
  standard_webhooks?: boolean;
  enabled?: boolean;
  managed_by?: ManagedBy | null;
}

/** What a registration answers (CONTRACTS.md 7): never a secret, only whether there is one. */
export function presentRegistration(r: Registration, now: number) {
  const rotating = r.previous_secret !== null && r.previous_until !== null && r.previous_until > now;
  return {
    id: r.id,
    event: r.event,
    url: r.url,
    filter: r.filter,
    auto_payload: r.auto_payload,
    enabled: r.enabled,
    created_at: r.created_at,
    has_secret: r.secret !== null,
    standard_webhooks: r.standard_webhooks,
    secret_rotation_ends_at: rotating ? new Date(r.previous_until!).toISOString() : null,
    disabled_reason: r.disabled_reason,
    updated_at: r.updated_at,
    managed_by: r.managed_by ?? null,
  };
}

/** The fields of a registration that change it (all but the bookkeeping of `updated_at`). */
const sameContent = (a: Registration, b: Registration): boolean => JSON.stringify({ ...a, updated_at: '' }) === JSON.stringify({ ...b, updated_at: '' });

interface OrgEntry {
  registrations: Map<string, Registration>;
  catchAll: string | null;
}

export function createRegistry(deps: { analytics: Analytics; clock: Clock; box: SecretBox; maxPerOrg: number }) {
  const { analytics, clock, box } = deps;
  let version = 0;
  const nextVersion = () => (version = Math.max(version + 1, clock.now() * 1000));

  async function load(orgId: string): Promise<OrgEntry> {
    const [regs, config] = await Promise.all([
      analytics.query({
        query: 'SELECT record FROM webhook_registrations FINAL WHERE org_id = {org:String} AND deleted = 0',
        query_params: { org: orgId },
        format: 'JSONEachRow',
      }),
      analytics.query({
        query: "SELECT value FROM webhook_org_config FINAL WHERE org_id = {org:String} AND key = 'webhook_url'",
        query_params: { org: orgId },
        format: 'JSONEachRow',
      }),
    ]);
    const rows = (await regs.json()) as { record: string }[];
    const registrations = new Map(rows.map((r) => JSON.parse(r.record) as Registration).map((r) => [r.id, r]));
    const [url] = (await config.json()) as { value: string | null }[];
    return { registrations, catchAll: url?.value ?? null };
  }
  // Deliveries must stop within CACHE_MS of a registration's delete in another process: wait, never serve older.
  const cache = new RefreshingCache<OrgEntry>({ clock, maxAgeMs: CACHE_MS, whenStale: 'wait', load: (org) => load(org) });
  const entry = (orgId: string): Promise<OrgEntry> => cache.get(orgId);

  /*
   * Opening a sealed secret (AES-GCM) at every attempt cost 4 % of the delivery worker's event loop.
   * A registration object is never changed in place (a change writes a new one, a reload parses new
   * ones), so its opened secrets live exactly as long as the object the cache holds: bounded by the
   * registrations in memory, gone within CACHE_MS of a change elsewhere, and never shared between two
   * registrations, let alone two organizations.
   */
  const opened = new WeakMap<Registration, { current: string; previous?: string }>();
  function unsealed(r: Registration, secret: string): { current: string; previous?: string } {
    let o = opened.get(r);
    if (!o) {
      o = { current: box.open(secret), ...(r.previous_secret ? { previous: box.open(r.previous_secret) } : {}) };
      opened.set(r, o);
    }
    return o;
  }

  async function write(r: Registration, deleted = false): Promise<void> {
    const now = clock.now();
    await analytics.insert({
      table: 'webhook_registrations',
      format: 'JSONEachRow',
      values: [{ org_id: r.org_id, id: r.id, record: JSON.stringify(r), deleted: deleted ? 1 : 0, version: nextVersion(), updated_at: new Date(now).toISOString() }],
    });
    const e = await entry(r.org_id);
    const registrations = new Map(e.registrations);
    if (deleted) registrations.delete(r.id);
    else registrations.set(r.id, r);
    cache.set(r.org_id, { ...e, registrations });
  }

  return {
    /** Creates a registration; QuotaExceededError past WEBHOOK_REGISTRATIONS_PER_ORG (counted in this process's view, so processes racing may pass it by a few). */
    async create(orgId: string, input: RegistrationInput, managedBy: ManagedBy | null = null): Promise<Registration> {
      if ((await entry(orgId)).registrations.size >= deps.maxPerOrg) throw new QuotaExceededError(deps.maxPerOrg, 'webhook registrations', 'WEBHOOK_REGISTRATIONS_PER_ORG');
      const now = new Date(clock.now()).toISOString();
      const r: Registration = {
        id: `wh_${randomBytes(12).toString('hex')}`,
        org_id: orgId,
        event: input.event,
        url: input.url,
        filter: input.filter ?? null,
        auto_payload: input.auto_payload ?? null,
        enabled: true,
        standard_webhooks: input.standard_webhooks ?? false,
        created_at: now,
        updated_at: now,
        disabled_reason: null,
        secret: input.secret ? box.seal(input.secret) : null,
        previous_secret: null,
        previous_until: null,
        managed_by: managedBy,
      };
      await write(r);
      return r;
    },

    /** A page of the organization's registrations in id order, starting after `after`; `next` is the last id when more follow. */
    async list(orgId: string, opts: { limit: number; after?: string }): Promise<{ page: Registration[]; next: string | null }> {
      const sorted = [...(await entry(orgId)).registrations.values()].filter((r) => opts.after === undefined || r.id > opts.after).sort((a, b) => (a.id < b.id ? -1 : 1));
      const page = sorted.slice(0, opts.limit);
      return { page, next: sorted.length > opts.limit ? page[page.length - 1]!.id : null };
    },

    async get(orgId: string, id: string): Promise<Registration | undefined> {
      return (await entry(orgId)).registrations.get(id);
    },

    /**
     * Registrations of an organization for one event, disabled ones too: their deliveries are
     * logged as skipped, so the owner sees what was missed and can redeliver it.
     */
    async forEvent(orgId: string, event: EventName): Promise<Registration[]> {
      return [...(await entry(orgId)).registrations.values()].filter((r) => r.event === event);
    },

    async update(orgId: string, id: string, change: RegistrationChange): Promise<Registration | undefined> {
      const r = (await entry(orgId)).registrations.get(id);
      if (!r) return undefined;
      const { secret, enabled, ...plain } = change;
      const next: Registration = { ...r, ...plain, updated_at: new Date(clock.now()).toISOString() };
      if (secret !== undefined) Object.assign(next, { secret: secret === null ? null : box.seal(secret), previous_secret: null, previous_until: null });
      // Only a change of `enabled` clears the service's reason: sending back what GET answered keeps it.
      if (enabled !== undefined && enabled !== r.enabled) Object.assign(next, { enabled, disabled_reason: null });
      if (next.standard_webhooks && next.secret === null) throw new RegistrationConflict('standard_webhooks needs a secret');
      // A change that changes nothing writes nothing: a GET sent back answers the same registration.
      if (sameContent(next, r)) return r;
      await write(next);
      return next;
    },

    /** A new secret signs from now on; the old one signs too until the grace period ends. */
    async rotateSecret(orgId: string, id: string, secret: string, graceMs: number): Promise<Registration | undefined> {
      const r = (await entry(orgId)).registrations.get(id);
      if (!r) return undefined;
      const now = clock.now();
      const next: Registration = {
        ...r,
        secret: box.seal(secret),
        previous_secret: r.secret && graceMs > 0 ? r.secret : null,
        previous_until: r.secret && graceMs > 0 ? now + graceMs : null,
        updated_at: new Date(now).toISOString(),
      };
      await write(next);
      return next;
    },

    /** The service's own switch (CONTRACTS.md 7): disabled after persistent failures, enabled by a success. */
    async setHealth(orgId: string, id: string, enabled: boolean, reason: string | null): Promise<void> {
      const r = (await entry(orgId)).registrations.get(id);
      if (!r || r.enabled === enabled) return;
      await write({ ...r, enabled, disabled_reason: reason, updated_at: new Date(clock.now()).toISOString() });
    },

    async remove(orgId: string, id: string): Promise<boolean> {
      const r = (await entry(orgId)).registrations.get(id);
      if (!r) return false;
      await write(r, true);
      return true;
    },

    /** The secrets that sign a registration's deliveries now. */
    secrets(r: Registration): SigningSecrets | null {
      if (!r.secret) return null;
      const o = unsealed(r, r.secret);
      const previous = o.previous !== undefined && r.previous_until !== null && r.previous_until > clock.now() ? o.previous : undefined;
      return { current: o.current, ...(previous ? { previous } : {}) };
    },

    async catchAll(orgId: string): Promise<string | null> {
      return (await entry(orgId)).catchAll;
    },

    async setCatchAll(orgId: string, url: string | null): Promise<void> {
      const now = clock.now();
      await analytics.insert({
        table: 'webhook_org_config',
        format: 'JSONEachRow',
        values: [{ org_id: orgId, key: 'webhook_url', value: url, version: nextVersion(), updated_at: new Date(now).toISOString() }],
      });
      const e = await entry(orgId);
      cache.set(orgId, { ...e, catchAll: url });
    },
  };
}

export class RegistrationConflict extends Error {}

export type Registry = ReturnType<typeof createRegistry>;
