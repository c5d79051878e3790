import type { CounterEvent } from '../../schemas/http/counters.js';
import { matchingCounters, type CompiledConfig } from './compile.js';

/** How far ahead of the clock an event may claim to have happened (clock skew of senders). */
export const MAX_FUTURE_MS = 5 * 60_000;

/**
 * The per-item rules an event must meet beyond its shape, against the organization's configuration.
 * Answers the reason for rejecting it, or null. `now` is the intake instant (HTTP) or the processing
 * instant (topic); a replay happens later, so it never rejects as future what a first delivery took.
 * `at` is occurred_at in epoch ms, for a caller that plans the event next with the same instant.
 */
export function checkEvent(compiled: CompiledConfig | null, event: CounterEvent, now: number, at = Date.parse(event.occurred_at)): string | null {
  if (at > now + MAX_FUTURE_MS) return `occurred_at ${event.occurred_at} is more than 5 minutes in the future`;
  if (event.attributes) {
    for (const attr of Object.keys(event.attributes)) {
      if (!compiled?.declaredAttributes.has(attr)) return `attributes.${attr}: attribute ${attr} is not declared in the counter configuration`;
    }
  }
  if (event.value === undefined && compiled) {
    const sum = matchingCounters(compiled, event).find((c) => c.def.aggregate === 'sum');
    if (sum) return `value: a number is required; sum counter ${sum.def.name} adds it`;
  }
  return null;
}
