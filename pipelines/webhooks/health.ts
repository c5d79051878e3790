import { admit, afterAttempt, CLOSED, releaseAt, shouldDisable, targetAfterAttempt, type CircuitState, type TargetHealth } from '../../domain/webhooks/circuit.js';

/**
 * Circuit and target health as this worker process sees them (domain/webhooks/circuit.ts holds the
 * rules). A circuit is keyed by organization and URL (circuit-board.ts `circuitKey`), so one
 * organization's failures to a URL never defer another's deliveries to it. Only destinations that
 * are failing have an entry, so the maps are bounded by the failing destinations, and a success
 * forgets them. Each worker process keeps its own: with several processes, each opens its circuit
 * after three failures of its own.
 */
export function createHealth(opts: { openMs: number; disableAfterMs: number; probeMs: number }) {
  const circuits = new Map<string, CircuitState>();
  const targets = new Map<string, TargetHealth>();
  return {
    /** When deliveries under `key` may go out: now, or when its open circuit lets them through. */
    releaseAt: (key: string, now: number) => releaseAt(circuits.get(key) ?? CLOSED, now),
    /** Asks to send under `key` now; answers when it may (now: go). Half open, the first asker becomes the probe. */
    admit(key: string, now: number): number {
      const current = circuits.get(key);
      if (!current) return now;
      const { at, state } = admit(current, now, opts.probeMs);
      circuits.set(key, state);
      return at;
    },
    /**
     * Records an attempt; answers whether the target must now be disabled (registered targets
     * only), and the circuit after it when it changed (CLOSED when a failing one closed).
     */
    record(key: string, targetKey: string | null, succeeded: boolean, now: number): { disable: boolean; circuit?: CircuitState } {
      const before = circuits.get(key);
      const c = afterAttempt(before ?? CLOSED, succeeded, now, opts.openMs);
      if (c.consecutiveFailures === 0) circuits.delete(key);
      else circuits.set(key, c);
      const circuit = before || !succeeded ? { circuit: c } : {};
      if (targetKey === null) return { disable: false, ...circuit };
      const h = targetAfterAttempt(targets.get(targetKey) ?? { failingSince: null }, succeeded, now);
      if (h.failingSince === null) targets.delete(targetKey);
      else targets.set(targetKey, h);
      return { disable: shouldDisable(h, now, opts.disableAfterMs), ...circuit };
    },
    /** Closes the circuit when a reset was asked at `resetAt`, after it last opened; answers whether it did. */
    resetIfAskedSince(key: string, resetAt: number): boolean {
      const c = circuits.get(key);
      if (!c || resetAt < c.openUntil - opts.openMs) return false;
      circuits.delete(key);
      return true;
    },
  };
}

export type Health = ReturnType<typeof createHealth>;
