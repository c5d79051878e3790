import type { Analytics } from '../../infra/analytics/types.js';
import { pageFromRows, type Page } from '../../schemas/http/paging.js';

/**
 * Cursors of the video lists (render jobs, assets, sources), newest first: a cursor names the last
 * item of a page by its creation time and id, so a page never repeats or skips an item when newer
 * ones arrive between calls. Pages are cut and cursors encoded as every list's are (schemas/http/paging.ts).
 */

/** The key a cursor encodes: the item's creation time in milliseconds and its id. */
const positionKey = (createdAt: string, id: string): string => JSON.stringify([Date.parse(createdAt), id]);

/** The position a cursor names, or undefined for one the service did not make. */
export function decodeCursor(cursor: string): { at: number; id: string } | undefined {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    return Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === 'string' ? { at: v[0] as number, id: v[1] as string } : undefined;
  } catch {
    return undefined;
  }
}

/** The SQL condition of rows after a cursor, on columns `created_at` and `<idColumn>`, with parameters at and id. */
export const afterCursor = (idColumn: string) => ` AND (created_at, ${idColumn}) < (fromUnixTimestamp64Milli({at:Int64}), {id:String})`;

/** A page of `limit` items out of `limit + 1` rows read, newest first. */
export const pageOf = <T>(rows: T[], limit: number, position: (item: T) => [createdAt: string, id: string]): Page<T> => pageFromRows(rows, (item) => positionKey(...position(item)), limit);

/**
 * A page of an organization's JSON records from a ReplacingMergeTree index table (columns org_id,
 * `<idColumn>`, record, deleted, created_at), newest first; undefined for a cursor this service did not make.
 */
export async function pageOfRecords<T>(analytics: Analytics, table: string, idColumn: string, orgId: string, limit: number, cursor: string | undefined, position: (item: T) => [createdAt: string, id: string]): Promise<Page<T> | undefined> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  if (cursor !== undefined && !after) return undefined;
  const rows = await (
    await analytics.query({
      query: `SELECT record FROM ${table} FINAL WHERE org_id = {org:String} AND deleted = 0${after ? afterCursor(idColumn) : ''} ORDER BY created_at DESC, ${idColumn} DESC LIMIT {limit:UInt32}`,
      query_params: { org: orgId, at: after?.at ?? 0, id: after?.id ?? '', limit: limit + 1 },
      format: 'JSONEachRow',
    })
  ).json<{ record: string }>();
  return pageOf(rows.map((r) => JSON.parse(r.record) as T), limit, position);
}
