import { createHash } from 'node:crypto';
import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import { deliveryJobSchema, publishJobs, type DeliveryJob } from './topics.js';

/**
 * Durable retry and deferral schedule. A job due later lives in the window store, never only in the
 * heap: its entry on the schedule's queue is a short id (the store's queues key entries by id, and
 * an LMDB key holds under 2 KB), and the job itself is a value stored beside it under that id, so a
 * job as large as the payload limit allows is scheduled like any other.
 *
 * The poller takes due entries under a lease: the step that takes an entry off the queue puts it
 * back LEASE_MS later, atomically. Once the job is in `webhook.deliveries` the entry is removed for
 * good and its value deleted. A publish that fails (the bus down), or a process that dies between
 * taking and publishing, leaves the entry on the queue: it comes due again after the lease and any
 * poller sends it. A death between the publish and the removal sends the job twice, which
 * receivers absorb by delivery_id (at least once).
 */

const SCOPE = 'webhooks';
const QUEUE = 'retry';
const JOBS = 'retry-jobs';
/** How long a taken entry stays away before it is taken again unless its publish removed it. */
export const LEASE_MS = 30_000;
const TICK_MS = 100;
/** Entries per pass: with payloads up to the event payload limit, a pass holds at most this many jobs in memory. */
const TAKE_LIMIT = 100;

export interface ScheduledJob {
  job: DeliveryJob;
  dueAt: number;
}

/** Deterministic, so a batch attempted again after a crash schedules over its own entries. */
const entryId = (s: ScheduledJob): string =>
  createHash('sha256').update(`${s.job.delivery_id}\n${s.job.target}\n${s.job.attempt}\n${s.dueAt}`).digest('base64url').slice(0, 24);

function parseJob(value: string): DeliveryJob | undefined {
  try {
    const parsed = deliveryJobSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Entries written before jobs were stored beside their ids carried the job in the id itself
 * (`a|<dueAt>|<job>`, `b|...` its backup): those still waiting after an upgrade are sent as they are.
 */
function legacyJob(id: string): DeliveryJob | undefined {
  const m = /^[ab]\|\d+\|/.exec(id);
  return m ? parseJob(id.slice(m[0].length)) : undefined;
}

export type RetrySchedulePlatform = Pick<Platform, 'windows' | 'clock' | 'log' | 'bus' | 'codec'>;

export function createRetrySchedule(platform: RetrySchedulePlatform, opts: { leaseMs?: number } = {}) {
  const { windows, clock, log } = platform;
  const leaseMs = opts.leaseMs ?? LEASE_MS;

  /** One pass: sends what is due. Answers how many entries it took. */
  async function pump(): Promise<number> {
    const now = clock.now();
    const ids = await windows.takeDue(SCOPE, QUEUE, now, TAKE_LIMIT, { queue: QUEUE, dueAt: now + leaseMs, prefix: '' });
    if (ids.length === 0) return 0;
    const values = await windows.getValues(SCOPE, JOBS, ids);
    const jobs: DeliveryJob[] = [];
    ids.forEach((id, i) => {
      const value = values[i];
      const job = value === null || value === undefined ? legacyJob(id) : parseJob(value);
      if (job) jobs.push(job);
      else log.error({ entry: id.slice(0, 200) }, 'webhook retry entry without a readable job dropped');
    });
    // Throws while the bus is down: the entries stay leased and come back.
    await publishJobs(platform, jobs);
    await windows.unschedule(SCOPE, QUEUE, ids);
    await windows.deleteValues(SCOPE, JOBS, ids);
    return ids.length;
  }

  return {
    /** Schedules jobs durably; resolves once the store holds them. */
    async add(items: ScheduledJob[]): Promise<void> {
      if (items.length === 0) return;
      const entries = items.map((s) => ({ id: entryId(s), s }));
      // The job first: an entry on the queue always finds its job.
      await windows.putValues(SCOPE, JOBS, entries.map((e) => ({ id: e.id, value: JSON.stringify(e.s.job) })));
      await windows.schedule(SCOPE, QUEUE, entries.map((e) => ({ id: e.id, dueAt: e.s.dueAt })));
    },
    pump,
    /** Polls every TICK_MS (at once again while a pass finds a full page). */
    start(): Stoppable {
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      let running: Promise<void> = Promise.resolve();
      const loop = async (): Promise<void> => {
        let taken = TAKE_LIMIT;
        try {
          while (!stopped && taken >= TAKE_LIMIT) taken = await pump();
        } catch (err) {
          log.error({ err }, 'webhook retry schedule pass failed; its entries come back after their lease');
        }
        if (!stopped) timer = setTimeout(() => void (running = loop()), TICK_MS);
      };
      running = loop();
      return {
        async stop() {
          stopped = true;
          if (timer) clearTimeout(timer);
          await running;
        },
      };
    },
  };
}

export type RetrySchedule = ReturnType<typeof createRetrySchedule>;
