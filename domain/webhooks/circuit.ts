/**
 * Health of delivery destinations (Document 3 "States and transitions", CONTRACTS.md 7). Pure
 * state machines: callers hold the state and the clock.
 *
 * Circuit per destination URL: every failed attempt counts; 3 consecutive failures open it for
 * WEBHOOK_CIRCUIT_OPEN_MS, during which deliveries to the URL are deferred until it reopens, not
 * dropped. When the time is up the URL is tried again (half open): a success closes the circuit, a
 * failure opens it for another period at once.
 */

export const FAILURES_TO_OPEN = 3;

export interface CircuitState {
  consecutiveFailures: number;
  /** While now < openUntil, deliveries to the URL wait. */
  openUntil: number;
}

export const CLOSED: CircuitState = { consecutiveFailures: 0, openUntil: 0 };

/** When an attempt may go out: now, or the instant the circuit lets deliveries through again. */
export const releaseAt = (s: CircuitState, now: number): number => (now < s.openUntil ? s.openUntil : now);

export function afterAttempt(s: CircuitState, succeeded: boolean, now: number, openMs: number): CircuitState {
  if (succeeded) return CLOSED;
  const consecutiveFailures = s.consecutiveFailures + 1;
  return { consecutiveFailures, openUntil: consecutiveFailures >= FAILURES_TO_OPEN ? now + openMs : s.openUntil };
}

/**
 * A registered target is disabled once its deliveries have failed without a single success for
 * WEBHOOK_DISABLE_AFTER_MS, and enabled again by its next successful delivery.
 * `failingSince` is the first failure after the last success (null when the last attempt succeeded).
 */
export interface TargetHealth {
  failingSince: number | null;
}

export function targetAfterAttempt(h: TargetHealth, succeeded: boolean, now: number): TargetHealth {
  if (succeeded) return { failingSince: null };
  return { failingSince: h.failingSince ?? now };
}

export const shouldDisable = (h: TargetHealth, now: number, disableAfterMs: number): boolean =>
  h.failingSince !== null && now - h.failingSince >= disableAfterMs;
