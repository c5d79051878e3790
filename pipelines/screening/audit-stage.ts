import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import { startStage } from '../stage.js';
import { SCREENINGS_TOPIC, screeningRecord } from './record.js';

/**
 * A record is durable in the log before its screen is answered; ClickHouse may see it this much
 * later. One insert and one offset commit per batch of this span, not per screen: under load the
 * per-screen inserts and offset fsyncs competed with the screens' own fsyncs and CPU.
 */
export const AUDIT_LINGER_MS = 200;

/**
 * Writes screening audit records from the topic to ClickHouse. The table is a ReplacingMergeTree
 * keyed by audit_id, so a batch delivered twice after a crash leaves one row per screening.
 */
export function startScreeningAuditStage(platform: Platform): Promise<Stoppable> {
  return startStage({
    platform,
    name: 'screening-audit',
    topic: SCREENINGS_TOPIC,
    schema: screeningRecord,
    lingerMs: AUDIT_LINGER_MS,
    handle: async (records) => {
      await platform.analytics.insert({
        table: 'screenings',
        format: 'JSONEachRow',
        values: records.map(({ value: r }) => ({
          audit_id: r.audit_id,
          org_id: r.org_id,
          name: r.name,
          decision: r.decision,
          score: r.score ?? null,
          entity_id: r.entity_id ?? null,
          list_version: r.list_version,
          created_at: r.created_at,
          payload: JSON.stringify(r.payload ?? null),
        })),
      });
    },
  });
}
