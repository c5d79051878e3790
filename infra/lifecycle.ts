import type { PartHealth } from './health.js';

/** What every long-running part (consumer, worker pool, scheduler) offers the process that started it. */
export interface Stoppable {
  /** Stops intake, drains work in flight, flushes state. */
  stop(): Promise<void>;
  /** Whether it still runs (a consumer that crashed is down); without it, it cannot fail on its own. */
  health?(): PartHealth;
}
