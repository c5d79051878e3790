import type { ServiceModule } from './types.js';
import { analyticsRouter } from '../api/analytics/routes.js';

/**
 * Analytics reads for organizations (docs/analytics.md): the documented queries over the other
 * services' tables, bound to the caller's organization. It owns no table and no topic; the
 * operators' way in, ClickHouse's HTTP interface on chDB, is started by the process itself
 * (ANALYTICS_PORT, app/start.ts).
 */
export const analyticsService: ServiceModule = {
  name: 'analytics',
  topics: [],
  migrations: [],
  async create({ platform, keys }) {
    return { router: analyticsRouter({ analytics: platform.analytics, keys, bodyLimit: platform.config.BODY_LIMIT }) };
  },
};
