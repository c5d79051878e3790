import { describe, expect, it } from 'vitest';
import { RELOAD_SCHEDULE, scheduleReload } from '../infra/sanctions/scheduler.js';

describe('daily list reload', () => {
  it('runs next at 03:00 UTC', async () => {
    const job = scheduleReload(async () => {});
    try {
      const next = job.next()!;
      expect([next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds()]).toEqual([3, 0, 0]);
      expect(next.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
      expect(RELOAD_SCHEDULE).toBe('0 3 * * *');
    } finally {
      await job.stop();
    }
  });

  it('calls the reload when the schedule fires, and never twice at once', async () => {
    let calls = 0;
    let release!: () => void;
    const job = scheduleReload(
      () => {
        calls++;
        return new Promise<void>((r) => (release = r));
      },
      '* * * * * *',
    );
    try {
      await expect.poll(() => calls, { timeout: 5000 }).toBe(1);
      await new Promise((r) => setTimeout(r, 1500));
      expect(calls).toBe(1);
      release();
    } finally {
      await job.stop();
    }
  });
});
