import { RELATIONSHIP_TYPES } from '../../domain/screening/entity.js';
import { DEFAULT_RELATIONSHIP_SETTINGS, type RelationshipSettings } from '../../domain/screening/screen.js';
import type { Analytics } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';

/** How long a read of an organization's settings is reused; a PUT in this process is seen at once. */
const CACHE_MS = 5_000;

/**
 * Per-organization relationship screening settings in ClickHouse (`aml_config`, one row per
 * version, ReplacingMergeTree keeps the newest). Reads are cached briefly: a screen must not pay
 * a query for settings that change rarely.
 */
export class OrgConfigStore {
  private readonly cache = new Map<string, { at: number; settings: RelationshipSettings }>();
  private version = 0;

  constructor(
    private readonly analytics: Analytics,
    private readonly clock: Clock,
  ) {}

  async get(orgId: string): Promise<RelationshipSettings> {
    const hit = this.cache.get(orgId);
    if (hit && this.clock.now() - hit.at < CACHE_MS) return hit.settings;
    const rs = await this.analytics.query({
      query: 'SELECT settings FROM aml_config FINAL WHERE org_id = {org:String} LIMIT 1',
      query_params: { org: orgId },
      format: 'JSONEachRow',
    });
    const rows = (await rs.json()) as { settings: string }[];
    const settings = rows[0] ? parseStored(rows[0].settings) : DEFAULT_RELATIONSHIP_SETTINGS;
    this.cache.set(orgId, { at: this.clock.now(), settings });
    return settings;
  }

  async put(orgId: string, change: Partial<RelationshipSettings>): Promise<RelationshipSettings> {
    const settings = { ...(await this.get(orgId)), ...change };
    const now = this.clock.now();
    // Versions grow with time and, within one millisecond, with each write of this process.
    this.version = Math.max(this.version + 1, now * 1000);
    await this.analytics.insert({
      table: 'aml_config',
      format: 'JSONEachRow',
      values: [{ org_id: orgId, settings: JSON.stringify(settings), version: this.version, updated_at: new Date(now).toISOString() }],
    });
    this.cache.set(orgId, { at: now, settings });
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
