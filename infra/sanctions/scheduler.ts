import { Cron } from 'croner';
import type { Stoppable } from '../lifecycle.js';

/** Daily list reload at 03:00 UTC (Document 3); overlapping runs are skipped, not queued. */
export const RELOAD_SCHEDULE = '0 3 * * *';

export function scheduleReload(reload: () => Promise<unknown>, pattern = RELOAD_SCHEDULE): Stoppable & { next(): Date | null } {
  const job = new Cron(pattern, { timezone: 'UTC', protect: true }, async () => {
    await reload();
  });
  return {
    next: () => job.nextRun(),
    stop: async () => job.stop(),
  };
}
