import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadlines } from '../pipelines/webhooks/deadlines.js';

/** The sender's shared deadlines, on fake timers: never before the timeout, one timer per slot. */

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => vi.useRealTimers());

describe('deadlines shared by a slot', () => {
  it('gives the requests of one slot one signal, aborted as a timeout no sooner than the last of them is due', () => {
    const d = deadlines(1_000, 100);
    const first = d.signal();
    vi.advanceTimersByTime(100);
    const sameSlot = d.signal();
    vi.advanceTimersByTime(1);
    const nextSlot = d.signal();
    expect(sameSlot).toBe(first);
    expect(nextSlot).not.toBe(first);
    expect(vi.getTimerCount()).toBe(2);

    vi.advanceTimersByTime(998);
    expect(first.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(first.aborted).toBe(true);
    expect((first.reason as DOMException).name).toBe('TimeoutError');
    expect(nextSlot.aborted).toBe(false);
    vi.advanceTimersByTime(101);
    expect(nextSlot.aborted).toBe(true);
  });

  it('carries every request of a busy slot without a listener-leak warning', async () => {
    vi.useRealTimers();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const signal = deadlines(1_000, 100).signal();
    for (let i = 0; i < 300; i++) signal.addEventListener('abort', () => {});
    // Node emits the warning on a later tick.
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
