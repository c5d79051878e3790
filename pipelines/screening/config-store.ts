import { RELATIONSHIP_TYPES } from '../../domain/screening/entity.js';
import { DEFAULT_RELATIONSHIP_SETTINGS, type RelationshipSettings } from '../../domain/screening/screen.js';
import type { Analytics } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import { RefreshingCache } from '../../infra/refreshing-cache.js';
import { fromClickHouseTime } from '../risk/ch-time.js';

/** How long a read of an organization's settings is reused; a PUT in this process is seen at once. */
const CACHE_MS = 5_000;

/**
 * Per-organization relationship screening settings in ClickHouse (`aml_config`, one row per
 * version, ReplacingMergeTree keeps the newest). A screen never waits for a settings query once an
 * organization's settings are known: after CACHE_MS the known settings still answer while one
 * query refreshes them in the background (a query in the request path every 5 s, one per waiting
 * request, was a cause of the screening tail latency). Only an organization's first read waits,
 * and concurrent first reads share one query.
 */
/** Settings as GET answers them: with the time of the PUT that stored them (null for the defaults). */
export type StoredSettings = RelationshipSettings & { updated_at: string | null };

const DEFAULTS: StoredSettings = { ...DEFAULT_RELATIONSHIP_SETTINGS, updated_at: null };

export class OrgConfigStore {
  private readonly cache: RefreshingCache<StoredSettings>;
  private version = 0;

  constructor(
    private readonly analytics: Analytics,
    private readonly clock: Clock,
  ) {
    this.cache = new RefreshingCache({ clock, maxAgeMs: CACHE_MS, whenStale: 'serve', load: (org) => this.read(org) });
  }

  /** The settings a screen uses (with `updated_at`, as GET answers them). */
  get(orgId: string): Promise<StoredSettings> {
    return this.cache.get(orgId);
  }

  private async read(orgId: string): Promise<StoredSettings> {
    const rs = await this.analytics.query({
      query: 'SELECT settings, updated_at FROM aml_config FINAL WHERE org_id = {org:String} LIMIT 1',
      query_params: { org: orgId },
      format: 'JSONEachRow',
    });
    const rows = (await rs.json()) as { settings: string; updated_at: string }[];
    return rows[0] ? { ...parseStored(rows[0].settings), updated_at: fromClickHouseTime(rows[0].updated_at) } : DEFAULTS;
  }

  async put(orgId: string, change: Partial<RelationshipSettings>): Promise<StoredSettings> {
    const { updated_at: _before, ...kept } = await this.get(orgId);
    const now = this.clock.now();
    const settings: StoredSettings = { ...kept, ...change, updated_at: new Date(now).toISOString() };
    const { updated_at, ...stored } = settings;
    // Versions grow with time and, within one millisecond, with each write of this process.
    this.version = Math.max(this.version + 1, now * 1000);
    await this.analytics.insert({
      table: 'aml_config',
      format: 'JSONEachRow',
      values: [{ org_id: orgId, settings: JSON.stringify(stored), version: this.version, updated_at }],
    });
    this.cache.set(orgId, settings);
    return settings;
  }
}

/** Stored settings over the defaults, so a setting added later reads its default. */
function parseStored(json: string): RelationshipSettings {
  const stored = JSON.parse(json) as Partial<RelationshipSettings>;
  const merged = { ...DEFAULT_RELATIONSHIP_SETTINGS, ...stored };
  merged.relationship_types = merged.relationship_types.filter((t) => (RELATIONSHIP_TYPES as readonly string[]).includes(t));
  return merged;
}
