import type { Analytics, Migration } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import { clickhouseDateTime } from '../../domain/rules/values.js';
import { afterCursor, decodeCursor, pageOf } from './page-cursor.js';
import type { RenderJob } from './ports.js';
import type { JobEvent, WorkerEvent } from './topics.js';

/**
 * Render jobs and render workers as last seen, in ClickHouse (one row per version;
 * ReplacingMergeTree keeps the newest). Jobs are written by the HTTP side when queued and by the
 * status recorder afterwards: each job's events arrive in order (one partition per job id), and a
 * job that reached complete or failed stays there, so a redelivered render never moves it again.
 */

export const jobStoreMigration: Migration = {
  id: 'video-001-render-jobs',
  statements: [
    `CREATE TABLE IF NOT EXISTS video_render_jobs (
      org_id String,
      job_id String,
      status LowCardinality(String),
      record String,
      version UInt64,
      updated_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, job_id)`,
    `CREATE TABLE IF NOT EXISTS video_render_workers (
      worker_id String,
      record String,
      seen_at DateTime64(3, 'UTC'),
      version UInt64
    ) ENGINE = ReplacingMergeTree(version) ORDER BY worker_id TTL toDateTime(seen_at) + INTERVAL 1 DAY`,
  ],
};

/** When each job was created and how many seconds of video it makes: the organization's render bounds read them. */
export const jobUsageMigration: Migration = {
  id: 'video-003-render-job-usage',
  statements: [
    `ALTER TABLE video_render_jobs ADD COLUMN IF NOT EXISTS created_at DateTime64(3, 'UTC') DEFAULT updated_at`,
    'ALTER TABLE video_render_jobs ADD COLUMN IF NOT EXISTS seconds Float64 DEFAULT 0',
  ],
};

export interface WorkerState {
  workerId: string;
  concurrency: number;
  busy: number;
  jobs: string[];
  lastSeen: string;
}

const TERMINAL = new Set(['complete', 'failed']);
/** A worker silent for this long is gone (it beats every WORKER_BEAT_MS). */
export const WORKER_BEAT_MS = 2_000;
const WORKER_GONE_MS = 5 * WORKER_BEAT_MS;


export type JobStore = ReturnType<typeof createJobStore>;

export function createJobStore(analytics: Analytics, clock: Clock) {
  let version = 0;
  const nextVersion = () => (version = Math.max(version + 1, clock.now() * 1000));

  async function write(job: RenderJob): Promise<void> {
    await analytics.insert({
      table: 'video_render_jobs',
      values: [
        {
          org_id: job.orgId,
          job_id: job.jobId,
          status: job.status,
          record: JSON.stringify(job),
          version: nextVersion(),
          updated_at: clickhouseDateTime(Date.parse(job.updatedAt)),
          created_at: clickhouseDateTime(Date.parse(job.createdAt)),
          seconds: job.seconds ?? 0,
        },
      ],
      format: 'JSONEachRow',
    });
  }

  async function get(orgId: string, jobId: string): Promise<RenderJob | null> {
    const rows = await (
      await analytics.query({
        query: 'SELECT record FROM video_render_jobs FINAL WHERE org_id = {org:String} AND job_id = {id:String}',
        query_params: { org: orgId, id: jobId },
        format: 'JSONEachRow',
      })
    ).json<{ record: string }>();
    return rows[0] ? (JSON.parse(rows[0].record) as RenderJob) : null;
  }

  return {
    create: write,
    get,
    /** Jobs queued or rendering now, and seconds of output of the jobs created since `since` (epoch ms), of one organization. */
    async usage(orgId: string, since: number): Promise<{ active: number; secondsToday: number }> {
      const [row] = await (
        await analytics.query({
          query:
            "SELECT countIf(status IN ('queued', 'rendering')) AS active, sumIf(seconds, created_at >= fromUnixTimestamp64Milli({since:Int64})) AS seconds FROM video_render_jobs FINAL WHERE org_id = {org:String}",
          query_params: { org: orgId, since },
          format: 'JSONEachRow',
        })
      ).json<{ active: string | number; seconds: number }>();
      return { active: Number(row?.active ?? 0), secondsToday: Number(row?.seconds ?? 0) };
    },
    /** The organization's jobs, newest first, `limit` a page; undefined for a cursor this store did not make. */
    async list(orgId: string, limit: number, cursor?: string): Promise<{ items: RenderJob[]; nextCursor: string | null } | undefined> {
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      if (cursor !== undefined && !after) return undefined;
      const rows = await (
        await analytics.query({
          query: `SELECT record FROM video_render_jobs FINAL WHERE org_id = {org:String}${after ? afterCursor('job_id') : ''} ORDER BY created_at DESC, job_id DESC LIMIT {limit:UInt32}`,
          query_params: { org: orgId, at: after?.at ?? 0, id: after?.id ?? '', limit: limit + 1 },
          format: 'JSONEachRow',
        })
      ).json<{ record: string }>();
      return pageOf(rows.map((r) => JSON.parse(r.record) as RenderJob), limit, (j) => [j.createdAt, j.jobId]);
    },
    /**
     * Applies a worker's event; false when it changes nothing: an unknown job (another
     * deployment's), a job already complete or failed, or progress that is not news.
     */
    async apply(e: JobEvent): Promise<boolean> {
      const job = await get(e.orgId, e.jobId);
      if (!job || TERMINAL.has(job.status)) return false;
      const next: RenderJob = {
        ...job,
        status: e.status,
        progress: e.status === 'complete' ? 1 : e.progress,
        updatedAt: new Date(e.at).toISOString(),
        ...(e.output ? { output: e.output } : {}),
        ...(e.errors ? { errors: e.errors } : {}),
      };
      await write(next);
      return true;
    },
    /** Queued jobs of every organization (a count only), and the organization's jobs rendering now. */
    async queue(orgId: string): Promise<{ depth: number; inFlight: RenderJob[] }> {
      const [depth, inFlight] = await Promise.all([
        analytics.query({ query: "SELECT count() AS n FROM video_render_jobs FINAL WHERE status = 'queued'", format: 'JSONEachRow' }).then((r) => r.json<{ n: string }>()),
        analytics
          .query({
            query: "SELECT record FROM video_render_jobs FINAL WHERE org_id = {org:String} AND status = 'rendering' ORDER BY updated_at LIMIT 100",
            query_params: { org: orgId },
            format: 'JSONEachRow',
          })
          .then((r) => r.json<{ record: string }>()),
      ]);
      return { depth: Number(depth[0]?.n ?? 0), inFlight: inFlight.map((r) => JSON.parse(r.record) as RenderJob) };
    },
    async workerSeen(e: WorkerEvent): Promise<void> {
      const state: WorkerState = { workerId: e.workerId, concurrency: e.concurrency, busy: e.busy, jobs: e.jobs, lastSeen: new Date(e.at).toISOString() };
      // A worker that stops says so: it leaves the list at once.
      const seenAt = e.stopping ? 0 : e.at;
      await analytics.insert({
        table: 'video_render_workers',
        values: [{ worker_id: e.workerId, record: JSON.stringify(state), seen_at: clickhouseDateTime(seenAt), version: nextVersion() }],
        format: 'JSONEachRow',
      });
    },
    /** Workers that beat recently. */
    async workers(): Promise<WorkerState[]> {
      const rows = await (
        await analytics.query({
          query: 'SELECT record FROM video_render_workers FINAL WHERE seen_at >= fromUnixTimestamp64Milli({since:Int64}) ORDER BY worker_id',
          query_params: { since: clock.now() - WORKER_GONE_MS },
          format: 'JSONEachRow',
        })
      ).json<{ record: string }>();
      return rows.map((r) => JSON.parse(r.record) as WorkerState);
    },
  };
}
