/**
 * Per-organization limits, so one tenant cannot grow what every tenant shares (the process's
 * memory, ClickHouse's tables and columns, the pipeline's throughput). Each is set by an
 * environment variable (infra/config.ts) and refused naming the limit and its variable.
 */
export interface Quotas {
  /** Rules (QUOTA_RULES_PER_ORG). */
  rules: number;
  /** Custom tables (QUOTA_TABLES_PER_ORG). */
  tables: number;
  /** Columns over all custom tables; separately, columns of the counter table (QUOTA_COLUMNS_PER_ORG). */
  columns: number;
  /** Lookup-table rows mirrored in process; beyond, tables are read by query (QUOTA_LOOKUP_ROWS_PER_ORG). */
  lookupRows: number;
}

export const QUOTA_VARIABLES: Record<keyof Quotas, string> = {
  rules: 'QUOTA_RULES_PER_ORG',
  tables: 'QUOTA_TABLES_PER_ORG',
  columns: 'QUOTA_COLUMNS_PER_ORG',
  lookupRows: 'QUOTA_LOOKUP_ROWS_PER_ORG',
};

/** A request that would take an organization past one of its limits. */
export class QuotaExceededError extends Error {
  constructor(limit: number, what: string, variable: string) {
    super(`quota exceeded: an organization may have at most ${limit} ${what} (${variable})`);
  }
}

/**
 * At most `limit` units per key in each wall-clock second (fixed windows: a burst may reach twice
 * the limit across a second's edge, which is enough to keep one tenant from flooding a pipeline).
 * One entry per key, overwritten each second.
 */
export class PerSecondLimit {
  private readonly windows = new Map<string, { second: number; used: number }>();
  constructor(readonly limit: number) {}

  /** Counts `n` units of `key` at `now` (ms) when they fit, answering 0; else the milliseconds until the next second. */
  admit(key: string, n: number, now: number): number {
    const second = Math.floor(now / 1000);
    let w = this.windows.get(key);
    if (!w || w.second !== second) this.windows.set(key, (w = { second, used: 0 }));
    if (w.used + n > this.limit) return (second + 1) * 1000 - now;
    w.used += n;
    return 0;
  }
}
