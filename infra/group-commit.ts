/**
 * Group commit: `flush` takes everything pending when it starts and makes it durable. Callers that
 * arrive while a flush runs share the next one, so N concurrent writers pay for about two fsyncs,
 * not N. The returned promise settles with the first flush that started after the call.
 */
export function groupCommit(flush: () => Promise<void>): () => Promise<void> {
  let inFlight: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const run: Promise<void> = flush().finally(() => {
      if (inFlight === run) inFlight = undefined;
    });
    inFlight = run;
    return run;
  };
  return () => {
    if (!inFlight) return start();
    queued ??= inFlight.then(settled, settled).then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  };
}

const settled = (): void => undefined;
