import type { ServerResponse } from 'node:http';
import { NEXT_CURSOR_HEADER, type Page } from '../../schemas/http/paging.js';

/** Sets `X-Next-Cursor` when a next page exists; answers then send the page's items in their own shape. */
export function setNextCursor(res: ServerResponse, page: Page<unknown>): void {
  if (page.nextCursor !== null) res.setHeader(NEXT_CURSOR_HEADER, page.nextCursor);
}
