import { randomUUID } from 'node:crypto';
import type { Analytics } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import type { EntityReads, WindowStore } from '../../infra/windows/types.js';
import type { WhitelistRequest, WhitelistType } from '../../schemas/http/risk.js';
import { normalizeIdentifier, whitelistEntity } from '../../domain/risk/state.js';
import { pageFromRows, type Page, type PageQuery } from '../../schemas/http/paging.js';
import { fromClickHouseTime } from './ch-time.js';

export interface WhitelistEntry {
  id: string;
  entity_type: WhitelistType;
  identifier: string;
  reason: string;
  verified_by: string;
  verification_method: string;
  created_at: string;
  expires_at: string;
}

interface Row extends WhitelistEntry {
  deleted: number;
}

/**
 * Whitelist entries: the record in ClickHouse (`risk_whitelist`, one row per version, a delete is a
 * newer version marked deleted), and for the check's hot path the expiry of each whitelisted
 * identifier as a maximum in the window store (`wl:<type>:<identifier>` / until), so a check asks
 * the store one read per identifier it carries (in the call of its other reads) and an entry ends at its expires_at by itself.
 */
export class WhitelistStore {
  constructor(
    private readonly analytics: Analytics,
    private readonly windows: WindowStore,
    private readonly clock: Clock,
  ) {}

  async add(orgId: string, req: WhitelistRequest): Promise<WhitelistEntry> {
    const now = this.clock.now();
    const entry: WhitelistEntry = {
      id: randomUUID(),
      entity_type: req.entity_type,
      identifier: normalizeIdentifier(req.entity_type, req.identifier),
      reason: req.reason,
      verified_by: req.verified_by,
      verification_method: req.verification_method,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + req.duration_hours * 3_600_000).toISOString(),
    };
    await this.write(orgId, entry, false);
    await this.windows.apply([{ entity: whitelistEntity(orgId, entry.entity_type, entry.identifier), updates: [{ kind: 'max', series: 'until', value: Date.parse(entry.expires_at) }] }]);
    return entry;
  }

  /** Removes an entry; false when the organization has no such entry. */
  async remove(orgId: string, id: string): Promise<boolean> {
    const [entry] = (await this.rows(orgId, 'id = {id:String}', { id })).filter((r) => !r.deleted);
    if (!entry) return false;
    await this.write(orgId, entry, true);
    await this.rebuild(orgId, entry.entity_type, entry.identifier);
    return true;
  }

  /**
   * The window-store reads that tell whether any of the identifiers is whitelisted, and the first
   * whitelisted one (or null) from their answers: the check makes them in the same call as its own.
   */
  lookup(orgId: string, identifiers: { type: WhitelistType; identifier: string }[]): { reads: EntityReads[]; match(values: (number | null)[][]): WhitelistType | null } {
    return {
      reads: identifiers.map((i) => ({ entity: whitelistEntity(orgId, i.type, i.identifier), reads: [{ kind: 'max', series: 'until' }] })),
      match: (values) => {
        const now = this.clock.now();
        return identifiers.find((_, k) => (values[k]![0] ?? 0) > now)?.type ?? null;
      },
    };
  }

  /** A page of the organization's entries not deleted (expired ones included, with their expires_at), by id. */
  async page(orgId: string, q: PageQuery): Promise<Page<WhitelistEntry>> {
    const rows = await this.rows(orgId, 'deleted = 0 AND id > {after:String}', { after: q.after ?? '', n: q.limit + 1 }, 'ORDER BY id LIMIT {n:UInt32}');
    return pageFromRows(
      rows.map(({ deleted: _d, ...e }) => e),
      (e) => e.id,
      q.limit,
    );
  }

  /** Live entries (not deleted) naming any of the identifiers (GDPR export and delete). */
  async entriesFor(orgId: string, identifiers: string[]): Promise<WhitelistEntry[]> {
    if (identifiers.length === 0) return [];
    return (await this.rows(orgId, 'identifier IN {ids:Array(String)}', { ids: identifiers })).filter((r) => !r.deleted).map(({ deleted: _d, ...e }) => e);
  }

  /** Deletes the rows of entries for good (GDPR), and their expiry in the window store. */
  async purge(orgId: string, identifiers: string[]): Promise<void> {
    if (identifiers.length === 0) return;
    const rows = await this.rows(orgId, 'identifier IN {ids:Array(String)}', { ids: identifiers });
    await this.analytics.command({
      query: 'DELETE FROM risk_whitelist WHERE org_id = {org:String} AND identifier IN {ids:Array(String)}',
      query_params: { org: orgId, ids: identifiers },
      clickhouse_settings: { mutations_sync: '2' },
    });
    await Promise.all(rows.map((r) => this.windows.deleteEntity(whitelistEntity(orgId, r.entity_type, r.identifier))));
  }

  private async rows(orgId: string, where: string, params: Record<string, unknown>, order = 'ORDER BY created_at'): Promise<Row[]> {
    const rs = await this.analytics.query({
      query: `SELECT id, entity_type, identifier, reason, verified_by, verification_method, created_at, expires_at, deleted FROM risk_whitelist FINAL WHERE org_id = {org:String} AND ${where} ${order}`,
      query_params: { org: orgId, ...params },
      format: 'JSONEachRow',
    });
    return (await rs.json<Row>()).map((r) => ({ ...r, created_at: fromClickHouseTime(r.created_at), expires_at: fromClickHouseTime(r.expires_at), deleted: Number(r.deleted) }));
  }

  private async write(orgId: string, e: WhitelistEntry, deleted: boolean): Promise<void> {
    await this.analytics.insert({
      table: 'risk_whitelist',
      format: 'JSONEachRow',
      values: [{ org_id: orgId, ...e, deleted: deleted ? 1 : 0, version: this.clock.now() * 1000 + (deleted ? 1 : 0) }],
    });
  }

  /** A maximum cannot go down: the identifier's expiry is rebuilt from the entries that remain. */
  private async rebuild(orgId: string, type: WhitelistType, identifier: string): Promise<void> {
    const entity = whitelistEntity(orgId, type, identifier);
    await this.windows.deleteEntity(entity);
    const rest = (await this.rows(orgId, 'entity_type = {t:String} AND identifier = {i:String}', { t: type, i: identifier })).filter((r) => !r.deleted);
    const until = Math.max(0, ...rest.map((r) => Date.parse(r.expires_at)));
    if (until > this.clock.now()) await this.windows.apply([{ entity, updates: [{ kind: 'max', series: 'until', value: until }] }]);
  }
}
