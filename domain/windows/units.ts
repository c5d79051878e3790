/**
 * Milliseconds of each window unit. Every rolling window (counters, rule aggregates, event-id
 * memory) counts in these; a use that accepts fewer units names its subset beside it.
 */
export const WINDOW_UNITS = { seconds: 1_000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;
export type WindowUnit = keyof typeof WINDOW_UNITS;
