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
  now: () => number;
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
    if (Number(n) > this.o.maxRows) this.tooBig = true;
    else await this.pull();
  }

  private async pull(): Promise<void> {
    const since = Math.max(0, this.maxVersion - SKEW_US);
    const startedAt = this.o.now();
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
    if (this.rows.size > this.o.maxRows) this.tooBig = true;
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
