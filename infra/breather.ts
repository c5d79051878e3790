import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/**
 * A long synchronous loop in a process that also serves HTTP holds every request that arrives
 * meanwhile. `breathe()` yields to the event loop on every `every`-th call, so a consumer batch of
 * hundreds of messages runs in slices with the API's requests between them.
 */
export function breather(every: number): () => Promise<void> | undefined {
  let calls = 0;
  return () => (++calls % every === 0 ? yieldToEventLoop() : undefined);
}
