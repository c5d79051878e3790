import type { Logger } from 'pino';
import type { Analytics } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import type { RiskEventName } from '../../domain/risk/events.js';
import type { WebhookConfigRequest } from '../../schemas/http/risk.js';
import { fromClickHouseTime } from './ch-time.js';
import { RefreshingCache } from '../../infra/refreshing-cache.js';

/** How long a read is used on the check's path before a background read refreshes it; a PUT in this process is seen at once. */
const CACHE_MS = 5_000;

export interface WebhookConfig {
  /** '' when the configuration says no webhook (PUT with url null). */
  url: string;
  /** The signing secret (the delivery pipeline signs with it), or '' when none was given. */
  secret: string;
  events: RiskEventName[];
  enabled: boolean;
  updated_at: string;
}

/** What the API answers: everything but the secret; before any configuration, no webhook. */
export const publicView = (c: WebhookConfig | null) =>
  c ? { url: c.url === '' ? null : c.url, events: c.events, enabled: c.enabled, has_secret: c.secret !== '', updated_at: c.updated_at } : { url: null, events: [], enabled: false, has_secret: false };

/**
 * Each organization's risk webhook configuration (`risk_webhooks`, newest version wins). The
 * secret is kept as given, because the delivery pipeline needs it to sign; the API never returns it.
 */
export class WebhookConfigStore {
  private readonly cache: RefreshingCache<WebhookConfig | null>;
  private version = 0;

  constructor(
    private readonly analytics: Analytics,
    private readonly clock: Clock,
    log: Logger,
    /** Applies a new configuration to the delivery side before it is stored; a throw stores nothing. */
    private readonly onChange?: (orgId: string, previousUrl: string | undefined, next: WebhookConfig) => Promise<void>,
  ) {
    this.cache = new RefreshingCache({
      clock,
      maxAgeMs: CACHE_MS,
      whenStale: 'serve',
      load: (org) => this.current(org),
      onRefreshError: (org, err) => log.warn({ err, org }, 'risk webhook configuration could not be refreshed; the previous one stays in use'),
    });
  }

  /** The configuration a check uses (cached, refreshed in the background). */
  get(orgId: string): Promise<WebhookConfig | null> {
    return this.cache.get(orgId);
  }

  async current(orgId: string): Promise<WebhookConfig | null> {
    const rs = await this.analytics.query({
      query: 'SELECT url, secret, events, enabled, updated_at FROM risk_webhooks FINAL WHERE org_id = {org:String} LIMIT 1',
      query_params: { org: orgId },
      format: 'JSONEachRow',
    });
    const [row] = await rs.json<{ url: string; secret: string; events: RiskEventName[]; enabled: number; updated_at: string }>();
    return row ? { ...row, enabled: Number(row.enabled) === 1, updated_at: fromClickHouseTime(row.updated_at) } : null;
  }

  /**
   * Replaces the configuration; a PUT without secret keeps the stored one. A PUT that changes
   * nothing keeps `updated_at`, so what GET answered, sent back, answers the same.
   */
  async put(orgId: string, req: WebhookConfigRequest): Promise<WebhookConfig> {
    const before = await this.current(orgId);
    const now = this.clock.now();
    const content = { url: req.url ?? '', secret: req.secret ?? before?.secret ?? '', events: [...new Set(req.events)], enabled: req.enabled };
    const unchanged = before !== null && JSON.stringify(content) === JSON.stringify({ url: before.url, secret: before.secret, events: before.events, enabled: before.enabled });
    const value: WebhookConfig = { ...content, updated_at: unchanged ? before.updated_at : new Date(now).toISOString() };
    await this.onChange?.(orgId, before?.url, value);
    this.version = Math.max(this.version + 1, now * 1000);
    await this.analytics.insert({ table: 'risk_webhooks', format: 'JSONEachRow', values: [{ org_id: orgId, ...value, enabled: value.enabled ? 1 : 0, version: this.version }] });
    this.cache.set(orgId, value);
    return value;
  }
}
