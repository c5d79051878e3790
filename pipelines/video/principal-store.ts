import { randomBytes } from 'node:crypto';
import type { Analytics, Migration } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import { RefreshingCache } from '../../infra/refreshing-cache.js';
import type { VideoScope } from '../../domain/video/scopes.js';
import type { VideoPrincipal } from '../../schemas/http/video-auth.js';
import { keyDigest } from '../../infra/api-keys.js';

/**
 * Database-backed API principals of the video service, in ClickHouse: one row per version of a
 * principal (ReplacingMergeTree keeps the newest), keyed by organization and id, carrying the
 * SHA-256 digest of its key and never the key. Every change also appends to an audit table, and a
 * disabled principal stays (disabled, with who and when), never deleted.
 *
 * Several API processes share the table. A process caches what a key resolves to, and whether a
 * token's principal is active, for CACHE_MS, so a principal created or disabled by another process
 * is seen within that time; what the cache does not hold is looked up at once, so a new principal
 * works everywhere immediately.
 */

export const CACHE_MS = 1_000;
const ID_PREFIX = 'prn_';

/** Whether an id names a database principal (deployment keys go by key_…, the demo by its own name). */
export const isPrincipalId = (id: string): boolean => id.startsWith(ID_PREFIX);

export const principalsMigration: Migration = {
  id: 'video-001-principals',
  statements: [
    `CREATE TABLE IF NOT EXISTS video_principals (
      org_id String,
      id String,
      key_digest String,
      record String,
      version UInt64,
      updated_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, id)`,
    `CREATE TABLE IF NOT EXISTS video_principal_audit (
      org_id String,
      principal_id String,
      action LowCardinality(String),
      actor String,
      at DateTime64(3, 'UTC')
    ) ENGINE = MergeTree ORDER BY (org_id, principal_id, at)`,
  ],
};

export type PrincipalStore = ReturnType<typeof createPrincipalStore>;

export function createPrincipalStore(deps: { analytics: Analytics; clock: Clock }) {
  const { analytics, clock } = deps;
  // A disabled principal's key and tokens must stop within CACHE_MS everywhere: callers wait past it.
  const byDigest = new RefreshingCache<VideoPrincipal | null>({
    clock,
    maxAgeMs: CACHE_MS,
    whenStale: 'wait',
    load: async (digest) => (await rows('SELECT record FROM video_principals FINAL WHERE key_digest = {d:String} LIMIT 1', { d: digest }))[0] ?? null,
    // Only keys that exist are cached: a stream of made-up keys adds nothing to the map.
    keep: (principal) => principal !== null,
  });
  // Made-up ids never get here: the token carrying them was signed by this service.
  const active = new RefreshingCache<boolean>({
    clock,
    maxAgeMs: CACHE_MS,
    whenStale: 'wait',
    load: async (key) => {
      // Principal ids hold no '/': the last one splits an organization id that might.
      const cut = key.lastIndexOf('/');
      const p = await find(key.slice(0, cut), key.slice(cut + 1));
      return p !== undefined && !p.principal.disabled;
    },
  });
  let version = 0;
  const nextVersion = () => (version = Math.max(version + 1, clock.now() * 1000));

  async function rows(query: string, params: Record<string, string>): Promise<VideoPrincipal[]> {
    const result = await analytics.query({ query, query_params: params, format: 'JSONEachRow' });
    return ((await result.json()) as { record: string }[]).map((r) => JSON.parse(r.record) as VideoPrincipal);
  }

  async function write(p: VideoPrincipal, digest: string, action: 'created' | 'updated' | 'disabled', actor: string): Promise<void> {
    const at = new Date(clock.now()).toISOString();
    await analytics.insert({
      table: 'video_principals',
      format: 'JSONEachRow',
      values: [{ org_id: p.orgId, id: p.id, key_digest: digest, record: JSON.stringify(p), version: nextVersion(), updated_at: at }],
    });
    await analytics.insert({ table: 'video_principal_audit', format: 'JSONEachRow', values: [{ org_id: p.orgId, principal_id: p.id, action, actor, at }] });
    byDigest.set(digest, p);
    active.set(`${p.orgId}/${p.id}`, !p.disabled);
  }

  async function find(orgId: string, id: string): Promise<{ principal: VideoPrincipal; digest: string } | undefined> {
    const result = await analytics.query({
      query: 'SELECT record, key_digest FROM video_principals FINAL WHERE org_id = {org:String} AND id = {id:String}',
      query_params: { org: orgId, id },
      format: 'JSONEachRow',
    });
    const [row] = (await result.json()) as { record: string; key_digest: string }[];
    return row ? { principal: JSON.parse(row.record) as VideoPrincipal, digest: row.key_digest } : undefined;
  }

  return {
    /** Creates a principal; answers it with its key, which exists nowhere else afterwards. */
    async create(orgId: string, input: { name: string; scopes: VideoScope[] }, actor: string): Promise<{ principal: VideoPrincipal; apiKey: string }> {
      const apiKey = `wvk_${randomBytes(32).toString('base64url')}`;
      const principal: VideoPrincipal = {
        id: `${ID_PREFIX}${randomBytes(12).toString('hex')}`,
        orgId,
        type: 'api_key',
        name: input.name,
        scopes: [...new Set(input.scopes)],
        disabled: false,
        createdAt: new Date(clock.now()).toISOString(),
        createdBy: actor,
        disabledAt: null,
        disabledBy: null,
      };
      await write(principal, keyDigest(apiKey).toString('hex'), 'created', actor);
      return { principal, apiKey };
    },

    list(orgId: string): Promise<VideoPrincipal[]> {
      return rows('SELECT record FROM video_principals FINAL WHERE org_id = {org:String} ORDER BY id', { org: orgId });
    },

    /** Renames a principal of `orgId` or changes its scopes; answers it as stored, or undefined when the organization has none of that id. */
    async update(orgId: string, id: string, change: { name: string; scopes: VideoScope[] }, actor: string): Promise<VideoPrincipal | undefined> {
      const hit = await find(orgId, id);
      if (!hit) return undefined;
      const updated = { ...hit.principal, name: change.name, scopes: [...new Set(change.scopes)] };
      await write(updated, hit.digest, 'updated', actor);
      return updated;
    },

    /** Disables a principal of `orgId`; answers it, or undefined when the organization has none of that id. */
    async disable(orgId: string, id: string, actor: string): Promise<VideoPrincipal | undefined> {
      const hit = await find(orgId, id);
      if (!hit || hit.principal.disabled) return hit?.principal;
      const disabled = { ...hit.principal, disabled: true, disabledAt: new Date(clock.now()).toISOString(), disabledBy: actor };
      await write(disabled, hit.digest, 'disabled', actor);
      return disabled;
    },

    /** One principal of `orgId`, or undefined. */
    async get(orgId: string, id: string): Promise<VideoPrincipal | undefined> {
      return (await find(orgId, id))?.principal;
    },

    /** Whether a token's principal exists and is not disabled, as of at most CACHE_MS ago. */
    async isActive(orgId: string, id: string): Promise<boolean> {
      return active.get(`${orgId}/${id}`);
    },

    /** The principal a presented key belongs to (disabled ones too: the caller answers 401 for them), or null. */
    async byKey(key: string): Promise<VideoPrincipal | null> {
      return byDigest.get(keyDigest(key).toString('hex'));
    },

    /** The principal of an id (OAuth client_id) whose key matches `key`, else null; constant-time by digest. */
    async byIdAndKey(id: string, key: string): Promise<VideoPrincipal | null> {
      const principal = await this.byKey(key);
      return principal && principal.id === id ? principal : null;
    },
  };
}
