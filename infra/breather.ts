/**
 * Loops that yield take turns: one slice per turn of the event loop, whoever asked first.
 * Several consumers running at once (a Kafka member handles six partitions side by side) would
 * otherwise all resume in the same check phase, six slices back to back before any request is read.
 */
const waiting: (() => void)[] = [];

function nextTurn(): void {
  waiting.shift()?.();
  if (waiting.length > 0) setImmediate(nextTurn);
}

/** Resolves on a later turn of the event loop, in the order asked, one waiter a turn. */
export function turn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) setImmediate(nextTurn);
  });
}

/**
 * A long synchronous loop in a process that also serves HTTP holds every request that arrives
 * meanwhile. `breathe()` yields to the event loop on every `every`-th call, so a consumer batch of
 * hundreds of messages runs in slices with the API's requests between them; slices of all the
 * process's loops share the turns of the event loop one at a time.
 */
export function breather(every: number): () => Promise<void> | undefined {
  let calls = 0;
  return () => (++calls % every === 0 ? turn() : undefined);
}
