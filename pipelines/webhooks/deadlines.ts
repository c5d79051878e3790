import { setMaxListeners } from 'node:events';

/**
 * Deadlines for many requests from a few timers. `AbortSignal.timeout` per request (a timer and a
 * weakly held signal each) cost 3.5 % of the delivery worker's event loop and fed its GC; here the
 * requests that start within one slot share one signal, aborted when the last of their deadlines
 * is due. Each request therefore gets at least `timeoutMs` and less than `timeoutMs + slotMs`.
 */
export function deadlines(timeoutMs: number, slotMs: number = Math.max(1, Math.min(100, Math.ceil(timeoutMs / 10)))) {
  let current: { due: number; signal: AbortSignal } | undefined;
  return {
    /** A signal that aborts (TimeoutError) no sooner than `timeoutMs` from now. */
    signal(now: number = performance.now()): AbortSignal {
      if (current && current.due >= now + timeoutMs) return current.signal;
      const due = now + timeoutMs + slotMs;
      const controller = new AbortController();
      // One signal carries every request of its slot in flight: not a leak.
      setMaxListeners(0, controller.signal);
      setTimeout(() => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), due - now).unref();
      current = { due, signal: controller.signal };
      return controller.signal;
    },
  };
}
