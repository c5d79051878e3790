import { ownError } from './errors.js';

/**
 * At most `running` queries at a time and `waiting` in line; one more is refused with the error a
 * server gives past `max_concurrent_queries`, so a burst of dashboards cannot queue without bound.
 */
export class Slots {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  async take(): Promise<() => void> {
    if (this.active >= this.running) {
      if (this.queue.length >= this.waiting) {
        throw ownError(202, 'TOO_MANY_SIMULTANEOUS_QUERIES', `Too many simultaneous queries. Maximum: ${this.running + this.waiting}`);
      }
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.active += 1;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next(); // the slot passes straight to the next in line
      else this.active -= 1;
    };
  }
}
