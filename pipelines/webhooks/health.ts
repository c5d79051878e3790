import { admit, afterAttempt, CLOSED, releaseAt, shouldDisable, targetAfterAttempt, type CircuitState, type TargetHealth } from '../../domain/webhooks/circuit.js';

/**
 * Circuit and target health as this worker process sees them (domain/webhooks/circuit.ts holds the
 * rules). Only destinations that are failing have an entry, so the maps are bounded by the failing
 * destinations, and a success forgets them. Each worker process keeps its own: with several
 * processes, each opens its circuit after three failures of its own.
 */
export function createHealth(opts: { openMs: number; disableAfterMs: number; probeMs: number }) {
  const circuits = new Map<string, CircuitState>();
  const targets = new Map<string, TargetHealth>();
  return {
    /** When deliveries to `url` may go out: now, or when its open circuit lets them through. */
    releaseAt: (url: string, now: number) => releaseAt(circuits.get(url) ?? CLOSED, now),
    /** Asks to send to `url` now; answers when it may (now: go). Half open, the first asker becomes the probe. */
    admit(url: string, now: number): number {
      const current = circuits.get(url);
      if (!current) return now;
      const { at, state } = admit(current, now, opts.probeMs);
      circuits.set(url, state);
      return at;
    },
    /** Records an attempt; answers whether the target must now be disabled (registered targets only). */
    record(url: string, targetKey: string | null, succeeded: boolean, now: number): { disable: boolean } {
      const c = afterAttempt(circuits.get(url) ?? CLOSED, succeeded, now, opts.openMs);
      if (c.consecutiveFailures === 0) circuits.delete(url);
      else circuits.set(url, c);
      if (targetKey === null) return { disable: false };
      const h = targetAfterAttempt(targets.get(targetKey) ?? { failingSince: null }, succeeded, now);
      if (h.failingSince === null) targets.delete(targetKey);
      else targets.set(targetKey, h);
      return { disable: shouldDisable(h, now, opts.disableAfterMs) };
    },
  };
}

export type Health = ReturnType<typeof createHealth>;
