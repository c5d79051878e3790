/**
 * A weighted limit on work in flight, shared by every caller that holds it, granted first come
 * first served. A call whose weight alone exceeds the budget still runs once nothing else is in
 * flight, so no weight waits for ever.
 *
 * Why: a server's command timeout counts the time a command waits behind the ones sent before it.
 * Callers that send all they have at once (six partitions of a backlog, each a batch of thousands
 * of events) queue seconds of work on the server and time out though nothing is wrong; with the
 * work in flight bounded, the rest waits here, where no timeout runs, and drains at the server's pace.
 * Grants follow the order of the calls, so commands still leave in the order they were asked for.
 */
export interface InFlightLimit {
  run<R>(weight: number, call: () => Promise<R>): Promise<R>;
  /** Weight in flight now (for tests and metrics). */
  readonly inFlight: number;
  /** Calls waiting for their grant now (for tests and metrics). */
  readonly waiting: number;
}

export function createInFlightLimit(budget: number): InFlightLimit {
  if (!(budget > 0)) throw new Error(`in-flight budget must be positive, got ${budget}`);
  let inFlight = 0;
  const waiting: { weight: number; grant: () => void }[] = [];

  const admit = (weight: number): boolean => inFlight === 0 || inFlight + weight <= budget;
  const release = (weight: number): void => {
    inFlight -= weight;
    while (waiting.length > 0 && admit(waiting[0]!.weight)) {
      const next = waiting.shift()!;
      inFlight += next.weight;
      next.grant();
    }
  };

  return {
    async run(weight, call) {
      if (waiting.length === 0 && admit(weight)) inFlight += weight;
      else await new Promise<void>((grant) => waiting.push({ weight, grant }));
      try {
        return await call();
      } finally {
        release(weight);
      }
    },
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
