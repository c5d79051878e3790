import { z } from 'zod';

/**
 * Cursor paging shared by every list: `?limit=&cursor=` in, the next page's cursor out in the
 * `X-Next-Cursor` header (absent on the last page) and, where the body is an object, in its
 * `next_cursor`. A cursor names the last key of the page it ends, so rows added or removed between
 * two requests neither repeat nor skip the others.
 */
export const NEXT_CURSOR_HEADER = 'X-Next-Cursor';
export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 500;
const MAX_CURSOR_CHARS = 1024;

const CURSOR_TEXT = /^[A-Za-z0-9_-]+$/;

/** The opaque cursor for a page that ends at `key`. */
export const encodeCursor = (key: string): string => Buffer.from(key, 'utf8').toString('base64url');

/** `?limit=&cursor=` as OpenAPI documents it; `listQuery` parses it. */
export const listQueryShape = (defaultLimit = DEFAULT_PAGE_LIMIT, maxLimit = MAX_PAGE_LIMIT) =>
  z.object({
    limit: z.coerce
      .number()
      .int('limit must be an integer')
      .min(1, 'limit must be at least 1')
      .max(maxLimit, `limit must be at most ${maxLimit}`)
      .default(defaultLimit)
      .meta({ description: `Items per page, 1 to ${maxLimit} (default ${defaultLimit})` }),
    cursor: z
      .string()
      .max(MAX_CURSOR_CHARS, `cursor must be at most ${MAX_CURSOR_CHARS} characters`)
      .regex(CURSOR_TEXT, 'cursor must be the X-Next-Cursor (or next_cursor) of a previous page')
      .optional()
      .meta({ description: 'The X-Next-Cursor header (or next_cursor) of the previous page; absent for the first page' }),
  });

/** `?limit=&cursor=` parsed: `after` is the key the previous page ended at (none for the first page). */
export const listQuery = (defaultLimit = DEFAULT_PAGE_LIMIT, maxLimit = MAX_PAGE_LIMIT) =>
  listQueryShape(defaultLimit, maxLimit).transform(({ limit, cursor }) => ({ limit, after: cursor === undefined ? undefined : Buffer.from(cursor, 'base64url').toString('utf8') }));
export type PageQuery = z.output<ReturnType<typeof listQuery>>;

/** One page: its items in key order and the cursor of the next page, null on the last. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * A page of `items` (any order) by `keyOf`, which must be unique per item. For stores that page
 * themselves, query `key > after` ordered by key with `limit + 1` rows and hand them to `pageFromRows`.
 */
export function pageOf<T>(items: readonly T[], keyOf: (item: T) => string, q: PageQuery): Page<T> {
  const { after } = q;
  const rest = items.filter((i) => after === undefined || keyOf(i) > after).sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  return pageFromRows(rest, keyOf, q.limit);
}

/** `rows` hold up to `limit + 1` items in key order after the cursor; the extra one says a next page exists. */
export function pageFromRows<T>(rows: readonly T[], keyOf: (item: T) => string, limit: number): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null };
}

/** OpenAPI: `next_cursor` of a paged body. */
export const nextCursorField = z.string().nullable().meta({ description: 'Cursor of the next page, for `?cursor=`; null on the last page', example: 'cnVsZS0wMDQy' });

/** OpenAPI: the header of a paged answer. */
export const pagedHeaders = z.object({
  [NEXT_CURSOR_HEADER]: z.string().optional().meta({ description: 'Cursor of the next page, for `?cursor=`; absent on the last page', example: 'cnVsZS0wMDQy' }),
});
