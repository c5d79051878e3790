import { createHash } from 'node:crypto';
import type { Analytics } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import { clickhouseDateTime } from '../../domain/rules/values.js';

/** How long an Idempotency-Key is remembered (Stripe's window): a retry within it is answered from the record. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** What a request with an Idempotency-Key answered, and a digest of the request it answered. */
export interface IdempotencyRecord {
  requestSha256: string;
  /** The JSON body answered, as sent. */
  response: string;
}

/** Idempotency records per organization and key, kept for IDEMPOTENCY_WINDOW_HOURS. */
export interface IdempotencyStore {
  find(orgId: string, key: string): Promise<IdempotencyRecord | undefined>;
  save(orgId: string, key: string, record: IdempotencyRecord): Promise<void>;
}

/** Digest of what a request asks: its route and its validated body (fields in schema order). */
export const requestDigest = (route: string, body: unknown): string => createHash('sha256').update(`${route}\0${JSON.stringify(body)}`).digest('hex');

export const IDEMPOTENCY_TABLE = `CREATE TABLE IF NOT EXISTS screening_idempotency (
  org_id String,
  idempotency_key String,
  request_sha256 String,
  response String,
  created_at DateTime64(3, 'UTC')
) ENGINE = MergeTree ORDER BY (org_id, idempotency_key, created_at)
TTL toDateTime(created_at) + INTERVAL ${IDEMPOTENCY_WINDOW_HOURS} HOUR`;

/**
 * Records in ClickHouse (`screening_idempotency`), one row per first answer, dropped by the
 * table's TTL after the window (a read ignores older rows before the TTL merge removes them).
 * Two requests with one key arriving at the same moment may both be screened; the earliest row
 * is the one every later retry gets, and both screenings stay in the audit under their own ids.
 */
export function clickhouseIdempotencyStore(analytics: Analytics, clock: Clock): IdempotencyStore {
  return {
    async find(orgId, key) {
      const since = clickhouseDateTime(clock.now() - IDEMPOTENCY_WINDOW_HOURS * 3600_000);
      const rs = await analytics.query({
        query: `SELECT request_sha256, response FROM screening_idempotency
                WHERE org_id = {org:String} AND idempotency_key = {key:String} AND created_at > {since:DateTime64(3, 'UTC')}
                ORDER BY created_at LIMIT 1`,
        query_params: { org: orgId, key, since },
        format: 'JSONEachRow',
      });
      const row = (await rs.json<{ request_sha256: string; response: string }>())[0];
      return row ? { requestSha256: row.request_sha256, response: row.response } : undefined;
    },
    async save(orgId, key, record) {
      await analytics.insert({
        table: 'screening_idempotency',
        format: 'JSONEachRow',
        values: [{ org_id: orgId, idempotency_key: key, request_sha256: record.requestSha256, response: record.response, created_at: new Date(clock.now()).toISOString() }],
      });
    },
  };
}
