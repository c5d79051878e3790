import type { Analytics, Migration } from '../../infra/analytics/types.js';
import type { DeliveryJob } from './topics.js';

/**
 * The delivery log in ClickHouse: `webhook_deliveries` holds every attempt (and every deferral or
 * skip) with its status, latency and error; `webhook_messages` holds each delivery's envelope once,
 * so it can be redelivered. Both expire after RETENTION_DAYS.
 */

export const RETENTION_DAYS = 30;

export const deliveryLogMigration: Migration = {
  id: 'webhooks-002-delivery-log',
  statements: [
    `CREATE TABLE IF NOT EXISTS webhook_deliveries (
      org_id String,
      webhook_id String,
      delivery_id String,
      event LowCardinality(String),
      attempt UInt16,
      status LowCardinality(String),
      http_status Nullable(UInt16),
      latency_ms UInt32,
      error Nullable(String),
      response_body Nullable(String),
      url String,
      attempted_at DateTime64(3, 'UTC'),
      next_attempt_at Nullable(DateTime64(3, 'UTC'))
    ) ENGINE = MergeTree ORDER BY (org_id, webhook_id, attempted_at, delivery_id)
    TTL toDateTime(attempted_at) + INTERVAL ${RETENTION_DAYS} DAY`,
    `CREATE TABLE IF NOT EXISTS webhook_messages (
      org_id String,
      webhook_id String,
      delivery_id String,
      event LowCardinality(String),
      timestamp String,
      payload String,
      created_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree ORDER BY (org_id, webhook_id, delivery_id)
    TTL toDateTime(created_at) + INTERVAL ${RETENTION_DAYS} DAY`,
  ],
};

export type AttemptStatus = 'succeeded' | 'failed' | 'retrying' | 'deferred' | 'skipped';

export interface AttemptRecord {
  job: DeliveryJob;
  status: AttemptStatus;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
  url: string;
  attemptedAt: number;
  nextAttemptAt: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** ClickHouse answers DateTime64 as `YYYY-MM-DD hh:mm:ss.sss` in UTC. */
const fromClickhouse = (s: string | null) => (s === null ? null : `${s.replace(' ', 'T')}Z`);

/** Rows are written at least this often, in one insert per table. */
const FLUSH_MS = 200;
/** A worker waits for the write once this many rows are pending (back-pressure on a slow ClickHouse). */
const MAX_PENDING = 5_000;

export function createDeliveryLog(analytics: Analytics, onError: (err: unknown) => void = () => undefined) {
  let pending: AttemptRecord[] = [];
  let writing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  /** Writes what is pending; rows of a failed write stay pending for the next one. */
  const flush = (): Promise<void> =>
    (writing = writing.then(async () => {
      const rows = pending;
      pending = [];
      try {
        await write(rows);
      } catch (err) {
        pending = [...rows, ...pending];
        onError(err);
      }
    }));

  async function write(attempts: AttemptRecord[]): Promise<void> {
    if (attempts.length === 0) return;
    const firsts = attempts.filter((a) => a.job.attempt === 1 && a.status !== 'deferred');
    await Promise.all([
      analytics.insert({
        table: 'webhook_deliveries',
        format: 'JSONEachRow',
        values: attempts.map((a) => ({
          org_id: a.job.org_id,
          webhook_id: a.job.target,
          delivery_id: a.job.delivery_id,
          event: a.job.event,
          attempt: a.job.attempt,
          status: a.status,
          http_status: a.httpStatus,
          latency_ms: a.latencyMs,
          error: a.error,
          response_body: a.responseBody,
          url: a.url,
          attempted_at: iso(a.attemptedAt),
          next_attempt_at: a.nextAttemptAt === null ? null : iso(a.nextAttemptAt),
        })),
      }),
      firsts.length === 0
        ? undefined
        : analytics.insert({
            table: 'webhook_messages',
            format: 'JSONEachRow',
            values: firsts.map((a) => ({
              org_id: a.job.org_id,
              webhook_id: a.job.target,
              delivery_id: a.job.delivery_id,
              event: a.job.event,
              timestamp: a.job.timestamp,
              payload: JSON.stringify(a.job.payload),
              created_at: iso(a.attemptedAt),
            })),
          }),
    ]);
  }

  return {
    /**
     * Queues the attempts of a batch; they are written within FLUSH_MS, many batches in one insert,
     * so a delivery does not wait for ClickHouse. The log is a record, not the delivery state: a
     * process killed before a write loses those rows (at most FLUSH_MS worth), never a delivery.
     */
    async record(attempts: AttemptRecord[]): Promise<void> {
      pending.push(...attempts);
      timer ??= setTimeout(() => {
        timer = undefined;
        void flush();
      }, FLUSH_MS);
      if (pending.length < MAX_PENDING) return;
      await flush();
      // ClickHouse is not taking rows: hold the batch (it is retried) rather than grow without bound.
      if (pending.length >= MAX_PENDING) throw new Error('webhook delivery log cannot be written');
    },

    /** Writes every pending row (graceful stop). */
    async close(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await flush();
    },

    /** Attempts to one target, newest first. */
    async list(orgId: string, webhookId: string, opts: { limit: number; deliveryId?: string; status?: AttemptStatus }) {
      const rs = await analytics.query({
        query: `SELECT delivery_id, event, attempt, status, http_status, latency_ms, error, response_body, url,
                  toString(attempted_at) AS attempted_at, toString(next_attempt_at) AS next_attempt_at
                FROM webhook_deliveries
                WHERE org_id = {org:String} AND webhook_id = {id:String}
                  ${opts.deliveryId ? 'AND delivery_id = {delivery:String}' : ''}
                  ${opts.status ? 'AND status = {status:String}' : ''}
                ORDER BY attempted_at DESC, attempt DESC LIMIT {limit:UInt32}`,
        query_params: { org: orgId, id: webhookId, delivery: opts.deliveryId ?? '', status: opts.status ?? '', limit: opts.limit },
        format: 'JSONEachRow',
      });
      const rows = (await rs.json()) as Record<string, unknown>[];
      return rows.map((r) => ({
        ...r,
        attempt: Number(r.attempt),
        http_status: r.http_status === null ? null : Number(r.http_status),
        latency_ms: Number(r.latency_ms),
        attempted_at: fromClickhouse(r.attempted_at as string),
        next_attempt_at: fromClickhouse(r.next_attempt_at as string | null),
      }));
    },

    /** The envelope of one delivery to one target, for a redelivery. */
    async message(orgId: string, webhookId: string, deliveryId: string): Promise<Pick<DeliveryJob, 'event' | 'timestamp' | 'payload'> | undefined> {
      const rs = await analytics.query({
        query: `SELECT event, timestamp, payload FROM webhook_messages FINAL
                WHERE org_id = {org:String} AND webhook_id = {id:String} AND delivery_id = {delivery:String} LIMIT 1`,
        query_params: { org: orgId, id: webhookId, delivery: deliveryId },
        format: 'JSONEachRow',
      });
      const [row] = (await rs.json()) as { event: string; timestamp: string; payload: string }[];
      return row ? { event: row.event, timestamp: row.timestamp, payload: JSON.parse(row.payload) as Record<string, unknown> } : undefined;
    },
  };
}

export type DeliveryLog = ReturnType<typeof createDeliveryLog>;
