import type { Analytics } from '../../infra/analytics/types.js';
import type { Row } from '../../domain/rules/evaluate.js';
import { quoteIdent } from '../../domain/rules/sql.js';

export interface MirrorOptions {
  analytics: Analytics;
  physical: string;
  idColumn: string;
  toRow: (raw: Record<string, unknown>) => Row;
  /** How often another process's writes are picked up. */
  refreshMs: number;
  /** Tables with more rows are not mirrored: their rows are read by query. */
  maxRows: number;
  /** Rows all mirrors of the organization may hold together; a table beyond it is read by query. */
  budget: RowBudget;
  now: () => number;
}

/** The rows one organization's mirrors hold together (QUOTA_LOOKUP_ROWS_PER_ORG). */
export class RowBudget {
  private used = 0;
  constructor(readonly max: number) {}
  fits(n: number): boolean {
    return this.used + n <= this.max;
  }
  take(n: number): boolean {
    if (!this.fits(n)) return false;
    this.used += n;
    return true;
  }
  give(n: number): void {
    this.used -= n;
  }
}

/** Versions are wall-clock microseconds; re-reading this much overlap tolerates clock skew between writers. */
const SKEW_US = 5_000_000;

/**
 * An in-process copy of one lookup table, so evaluating a transaction reads its row without a
 * query. Filled once, then kept current incrementally (`_version` greater than the last seen,
 * FINAL); local writes refresh it before they answer, other processes' within `refreshMs`. A first
 * fill that fails (a transient ClickHouse error) fails the reads waiting for it and is tried again
 * by the next one.
 */
export class LookupMirror {
  private rows = new Map<string, Row>();
  private maxVersion = 0;
  private checkedAt = 0;
  private inflight: Promise<void> | null = null;
  private tooBig = false;
  private filled = false;
  private filling: Promise<void> | null = null;

  constructor(private readonly o: MirrorOptions) {
    // Started now so the first transaction finds it ready; if it fails, the next read tries again.
    this.ready().catch(() => undefined);
  }

  private ready(): Promise<void> {
    if (this.filled) return Promise.resolve();
    this.filling ??= this.fill().then(
      () => {
        this.filled = true;
      },
      (err: unknown) => {
        this.filling = null;
        throw err;
      },
    );
    return this.filling;
  }

  private async fill(): Promise<void> {
    const rs = await this.o.analytics.query({ query: `SELECT count() AS n FROM ${quoteIdent(this.o.physical)} FINAL`, format: 'JSONEachRow' });
    const [{ n }] = (await rs.json<{ n: string }>()) as [{ n: string }];
    if (Number(n) > this.o.maxRows || !this.o.budget.fits(Number(n))) this.tooBig = true;
    else await this.pull();
  }

  private async pull(): Promise<void> {
    const since = Math.max(0, this.maxVersion - SKEW_US);
    const startedAt = this.o.now();
    const held = this.rows.size;
    const rs = await this.o.analytics.query({
      query: `SELECT * FROM ${quoteIdent(this.o.physical)} FINAL WHERE _version > {since:UInt64}`,
      query_params: { since },
      format: 'JSONEachRow',
    });
    for (const raw of await rs.json<Record<string, unknown>>()) {
      this.rows.set(String(raw[this.o.idColumn]), this.o.toRow(raw));
      this.maxVersion = Math.max(this.maxVersion, Number(raw._version));
    }
    this.checkedAt = startedAt;
    if (this.rows.size > this.o.maxRows || !this.o.budget.take(this.rows.size - held)) {
      this.release(held);
      this.tooBig = true;
    }
  }

  /** Gives the rows held back to the organization's budget (the table is dropped or too big). */
  release(held = this.rows.size): void {
    this.o.budget.give(held);
    this.rows.clear();
  }

  /** Picks up writes now (after a local write). */
  refresh(): Promise<void> {
    this.inflight ??= this.ready().then(() => (this.tooBig ? undefined : this.pull())).finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  async get(id: string): Promise<Row | undefined> {
    await this.ready();
    if (this.tooBig) return this.query(id);
    if (this.o.now() - this.checkedAt > this.o.refreshMs && !this.inflight) void this.refresh().catch(() => undefined);
    return this.rows.get(id);
  }

  private async query(id: string): Promise<Row | undefined> {
    const rs = await this.o.analytics.query({
      query: `SELECT * FROM ${quoteIdent(this.o.physical)} FINAL WHERE ${quoteIdent(this.o.idColumn)} = {id:String} LIMIT 1`,
      query_params: { id },
      format: 'JSONEachRow',
    });
    const [raw] = await rs.json<Record<string, unknown>>();
    return raw ? this.o.toRow(raw) : undefined;
  }
}
