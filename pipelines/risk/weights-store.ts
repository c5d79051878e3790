import type { Logger } from 'pino';
import type { Analytics } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import { fromClickHouseTime } from './ch-time.js';
import { RefreshingCache } from '../../infra/refreshing-cache.js';
import { scoringConfigSchema, type ScoringConfig } from '../../schemas/http/risk.js';
import { VersionConflictError } from '../counters/config-store.js';

/** How long a read of an organization's weights is used before a background read refreshes it; a PUT in this process is seen at once. */
const CACHE_MS = 5_000;

export interface VersionedConfig {
  config: ScoringConfig;
  version: number;
  updated_at: string | null;
}

/**
 * Scoring configurations per organization, versioned: each PUT appends version n + 1 to
 * `risk_weights` (the history stays for audit); checks read the newest through a short cache.
 * Before the first PUT an organization scores with the defaults, version 0.
 */
export class WeightsStore {
  private readonly cache: RefreshingCache<VersionedConfig>;
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly analytics: Analytics,
    private readonly clock: Clock,
    log: Logger,
  ) {
    this.cache = new RefreshingCache({
      clock,
      maxAgeMs: CACHE_MS,
      whenStale: 'serve',
      load: (org) => this.current(org),
      onRefreshError: (org, err) => log.warn({ err, org }, 'risk weights could not be refreshed; the previous version stays in use'),
    });
  }

  /** The organization's weights for a check (cached, refreshed in the background). */
  get(orgId: string): Promise<VersionedConfig> {
    return this.cache.get(orgId);
  }

  /** The newest version as stored (GET reads this: read-your-writes across processes). */
  async current(orgId: string): Promise<VersionedConfig> {
    const rs = await this.analytics.query({
      query: 'SELECT version, config, created_at FROM risk_weights WHERE org_id = {org:String} ORDER BY version DESC, created_at ASC LIMIT 1',
      query_params: { org: orgId },
      format: 'JSONEachRow',
    });
    const [row] = await rs.json<{ version: string | number; config: string; created_at: string }>();
    const value: VersionedConfig = row
      ? { config: scoringConfigSchema.parse(JSON.parse(row.config)), version: Number(row.version), updated_at: fromClickHouseTime(row.created_at) }
      : { config: scoringConfigSchema.parse({}), version: 0, updated_at: null };
    return value;
  }

  /**
   * Stores a new version; writers of one organization in this process take turns. With
   * `fromVersion`, only if that is still the newest (else VersionConflictError).
   */
  put(orgId: string, config: ScoringConfig, fromVersion?: number): Promise<VersionedConfig> {
    const run = async () => {
      const before = await this.current(orgId);
      if (fromVersion !== undefined && fromVersion !== before.version) throw new VersionConflictError(before.version);
      const now = this.clock.now();
      const value: VersionedConfig = { config, version: before.version + 1, updated_at: new Date(now).toISOString() };
      await this.analytics.insert({
        table: 'risk_weights',
        format: 'JSONEachRow',
        values: [{ org_id: orgId, version: value.version, config: JSON.stringify(config), created_at: value.updated_at }],
      });
      this.cache.set(orgId, value);
      return value;
    };
    const prev = this.locks.get(orgId) ?? Promise.resolve();
    const next = prev.then(run, run);
    this.locks.set(orgId, next.catch(() => undefined));
    return next;
  }
}
