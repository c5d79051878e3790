import type { ServiceModule } from './types.js';
import type { Platform } from '../infra/platform.js';
import { analyticsRouter } from '../api/analytics/routes.js';
import { createAnalyticsReader, type CounterColumns } from '../pipelines/analytics/reader.js';

export interface AnalyticsServiceDeps {
  /** An organization's counter table and columns (the counter service's configuration). */
  counterColumns: (platform: Platform, orgId: string) => ReturnType<CounterColumns>;
}

/**
 * Analytics reads for organizations (docs/analytics.md): the documented queries over the other
 * services' tables, bound to the caller's organization. It owns no table and no topic; the
 * operators' way in, ClickHouse's HTTP interface on chDB, is started by the process itself
 * (ANALYTICS_PORT, app/start.ts).
 */
export const analyticsService = (deps: AnalyticsServiceDeps): ServiceModule => ({
  name: 'analytics',
  topics: [],
  migrations: [],
  async create({ platform, keys }) {
    const counterColumns: CounterColumns = (orgId) => deps.counterColumns(platform, orgId);
    return { router: analyticsRouter({ reader: createAnalyticsReader({ analytics: platform.analytics, counterColumns }), keys, bodyLimit: platform.config.BODY_LIMIT }) };
  },
});
