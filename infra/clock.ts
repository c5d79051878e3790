/** Time behind a port so window arithmetic and expiry can be tested at chosen instants. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export function manualClock(start: number): Clock & { set(ms: number): void; advance(ms: number): void } {
  let t = start;
  return { now: () => t, set: (ms) => { t = ms; }, advance: (ms) => { t += ms; } };
}
