/**
 * Steps run in order with at most one in flight, while the caller prepares the next: `start` waits
 * for the step before (throwing its failure) and starts this one without waiting for it; `settle`
 * waits for the last and throws its failure; `idle` waits for it whatever its outcome. A failure is
 * held until awaited, so it is never an unhandled rejection meanwhile.
 */
export function oneInFlight() {
  let last: Promise<{ error: unknown } | undefined> = Promise.resolve(undefined);
  const settle = async (): Promise<void> => {
    const failed = await last;
    if (failed) throw failed.error;
  };
  return {
    async start(step: () => Promise<unknown>): Promise<void> {
      await settle();
      last = step().then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
    },
    settle,
    idle: async (): Promise<void> => void (await last),
  };
}
