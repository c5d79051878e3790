import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../services/types.js';
import { deliveryJobSchema, publishJobs, type DeliveryJob } from './topics.js';

/**
 * Durable retry and deferral schedule. A job due later lives in the window store's schedule (Redis
 * sorted set, or the embedded store's fsync'ed journal), never only in the heap; when it is due,
 * a poller puts it back on `webhook.deliveries`. A worker killed while a retry waits loses nothing:
 * the entry stays in the store until some process takes it.
 *
 * Taking entries off the schedule and appending them to the log are two steps; a process dying
 * between them would lose the job. So each job is scheduled twice: the primary entry at its due
 * time and a backup BACKUP_AFTER_MS later. The poller marks a primary "sent" (a claim) once the log
 * holds it; a backup whose mark is missing is sent, one whose mark is there is dropped. A death
 * between the append and the mark sends the job twice, which receivers absorb by delivery_id.
 */

const SCOPE = 'webhooks';
const QUEUE = 'retry';
const SENT = 'retry-sent';
export const BACKUP_AFTER_MS = 30_000;
const TICK_MS = 100;
const TAKE_LIMIT = 1_000;

export interface ScheduledJob {
  job: DeliveryJob;
  dueAt: number;
}

const encode = (kind: 'a' | 'b', s: ScheduledJob) => `${kind}|${s.dueAt}|${JSON.stringify(s.job)}`;
const sentKey = (s: ScheduledJob) => `${s.job.delivery_id}:${s.job.target}:${s.job.attempt}:${s.dueAt}`;

function decode(id: string): { kind: string; scheduled: ScheduledJob } | undefined {
  const [kind, dueAt] = id.split('|', 2);
  const json = id.slice((kind?.length ?? 0) + (dueAt?.length ?? 0) + 2);
  const parsed = deliveryJobSchema.safeParse((() => {
    try {
      return JSON.parse(json);
    } catch {
      return undefined;
    }
  })());
  if (!kind || !parsed.success) return undefined;
  return { kind, scheduled: { job: parsed.data, dueAt: Number(dueAt) } };
}

export function createRetrySchedule(platform: Platform) {
  const { windows, clock, log } = platform;

  const publish = (jobs: DeliveryJob[]) => publishJobs(platform, jobs);

  /** One pass: sends what is due. Answers how many entries it took. */
  async function pump(): Promise<number> {
    const ids = await windows.takeDue(SCOPE, QUEUE, clock.now(), TAKE_LIMIT);
    if (ids.length === 0) return 0;
    const primaries: ScheduledJob[] = [];
    const backups: ScheduledJob[] = [];
    for (const id of ids) {
      const d = decode(id);
      if (!d) {
        log.error({ entry: id.slice(0, 200) }, 'unreadable webhook retry entry dropped');
        continue;
      }
      (d.kind === 'a' ? primaries : backups).push(d.scheduled);
    }
    await publish(primaries.map((s) => s.job));
    if (primaries.length > 0) await windows.claim(SCOPE, SENT, primaries.map(sentKey), 4 * BACKUP_AFTER_MS);
    if (backups.length > 0) {
      const unsent = await windows.claim(SCOPE, SENT, backups.map(sentKey), 4 * BACKUP_AFTER_MS);
      await publish(backups.filter((_, i) => unsent[i]).map((s) => s.job));
    }
    return ids.length;
  }

  return {
    /** Schedules jobs durably; resolves once the store holds them. */
    async add(items: ScheduledJob[]): Promise<void> {
      if (items.length === 0) return;
      await windows.schedule(
        SCOPE,
        QUEUE,
        items.flatMap((s) => [
          { id: encode('a', s), dueAt: s.dueAt },
          { id: encode('b', s), dueAt: s.dueAt + BACKUP_AFTER_MS },
        ]),
      );
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
          log.error({ err }, 'webhook retry schedule pass failed; trying again');
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
