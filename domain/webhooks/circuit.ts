/**
 * Health of delivery destinations (Document 3 "States and transitions", CONTRACTS.md 7). Pure
 * state machines: callers hold the state and the clock.
 *
 * Circuit per organization and destination URL (one tenant's failures never defer another's
 * deliveries): every failed attempt counts; 3 consecutive failures open it for
 * WEBHOOK_CIRCUIT_OPEN_MS, during which the organization's deliveries to the URL are deferred until
 * it reopens, not dropped. When the time is up the URL is tried again (half open): one delivery goes out as a probe
 * while the others keep waiting; its success closes the circuit, its failure opens it for another
 * period at once.
 */

export const FAILURES_TO_OPEN = 3;

export interface CircuitState {
  consecutiveFailures: number;
  /** While now < openUntil, deliveries to the URL wait. */
  openUntil: number;
  /** Half open: while now < probeUntil a probe is in flight and the other deliveries wait. */
  probeUntil: number;
}

export const CLOSED: CircuitState = { consecutiveFailures: 0, openUntil: 0, probeUntil: 0 };

/** How long deliveries wait for a probe's answer before looking again. */
export const PROBE_RECHECK_MS = 1_000;

const halfOpen = (s: CircuitState) => s.consecutiveFailures >= FAILURES_TO_OPEN;

/** When an attempt may go out: now, or when the circuit may let it through. Does not change the state. */
export function releaseAt(s: CircuitState, now: number): number {
  if (now < s.openUntil) return s.openUntil;
  if (halfOpen(s) && now < s.probeUntil) return Math.min(s.probeUntil, now + PROBE_RECHECK_MS);
  return now;
}

/**
 * Asks to send now. Answers when the attempt may go (now: go) and the new state: the first
 * delivery admitted after the open period becomes the probe, for at most `probeMs`.
 */
export function admit(s: CircuitState, now: number, probeMs: number): { at: number; state: CircuitState } {
  const at = releaseAt(s, now);
  if (at > now || !halfOpen(s)) return { at, state: s };
  return { at: now, state: { ...s, probeUntil: now + probeMs } };
}

export function afterAttempt(s: CircuitState, succeeded: boolean, now: number, openMs: number): CircuitState {
  if (succeeded) return CLOSED;
  const consecutiveFailures = s.consecutiveFailures + 1;
  return { consecutiveFailures, openUntil: consecutiveFailures >= FAILURES_TO_OPEN ? now + openMs : s.openUntil, probeUntil: 0 };
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
