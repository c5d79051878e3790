import path from 'node:path';
import { servesHttp, type ServiceModule } from './types.js';
import type { Thresholds } from '../domain/screening/screen.js';
import { SnapshotStore } from '../infra/sanctions/store.js';
import { scheduleReload } from '../infra/sanctions/scheduler.js';
import { screeningRouter } from '../api/screening/routes.js';
import { OrgConfigStore } from '../pipelines/screening/config-store.js';
import { clickhouseIdempotencyStore } from '../pipelines/screening/idempotency.js';
import { screeningMigrations } from '../pipelines/screening/migrations.js';
import { startScreeningAuditStage } from '../pipelines/screening/audit-stage.js';
import { SCREENINGS_TOPIC } from '../pipelines/screening/record.js';

/**
 * Sanctions and PEP screening (Document 3 part A): lists from SANCTIONS_DATA_DIR loaded in the
 * background at start and reloaded daily at 03:00 UTC, screening endpoints under /v1/aml, and the
 * `screenings` audit topic drained into ClickHouse by the `screening` worker role.
 */
export const screeningService: ServiceModule = {
  name: 'screening',
  topics: [{ topic: SCREENINGS_TOPIC, partitions: 3 }],
  migrations: screeningMigrations,
  async create({ platform, keys, role }) {
    const config = platform.config;
    const thresholds: Thresholds = {
      review: config.SCREENING_REVIEW_THRESHOLD,
      block: config.SCREENING_BLOCK_THRESHOLD,
    };
    const dir = path.resolve(config.SANCTIONS_DATA_DIR);
    const lists = new SnapshotStore(dir, platform.log.child({ service: 'screening' }));
    // Lists serve HTTP only: a pipeline-only process does not hold them. Loading takes seconds;
    // /health answers meanwhile and screening requests wait for the first snapshot.
    const http = servesHttp(role);
    if (http) void lists.reload();
    const schedule = http ? scheduleReload(() => lists.reload()) : undefined;
    const router = screeningRouter({
      keys,
      clock: platform.clock,
      windows: platform.windows,
      log: platform.log,
      bodyLimit: config.BODY_LIMIT,
      lists,
      configs: new OrgConfigStore(platform.analytics, platform.clock),
      thresholds,
      audit: async (records) => {
        const messages = await Promise.all(records.map(async (r) => ({ key: r.org_id, value: await platform.codec.encode(SCREENINGS_TOPIC, r) })));
        await platform.bus.send(SCREENINGS_TOPIC, messages);
      },
      idempotency: clickhouseIdempotencyStore(platform.analytics, platform.clock),
    });
    return {
      router,
      workers: [{ role: 'screening', name: 'screening-audit', start: () => startScreeningAuditStage(platform) }],
      ownRateLimits: ['/v1/aml'],
      close: async () => schedule?.stop(),
    };
  },
};
