import type { Response } from 'express';
import type { Page } from '../../schemas/http/paging.js';
import { setNextCursor } from '../http/paging.js';

/** Document 1's response envelope for every successful rule-engine body. */
export function envelope(res: Response, status: number, data: unknown, message?: string): void {
  sendJson(res, status, JSON.stringify(message === undefined ? { success: true, data } : { success: true, data, message }));
}

/** A page of a list: the items as `data`, the next page's cursor as `next_cursor` (null on the last) and `X-Next-Cursor`. */
export function pagedEnvelope(res: Response, page: Page<unknown>): void {
  setNextCursor(res, page);
  sendJson(res, 200, JSON.stringify({ success: true, data: page.items, next_cursor: page.nextCursor }));
}

/**
 * Sends JSON text as it is. The transaction answer embeds processedRules JSON built from fragments
 * fixed per rule version (domain/rules/rule.ts), not JSON.stringify; and the ETag of `res.json`
 * (a hash of every body) buys nothing for answers that are never the same twice.
 */
export function sendJson(res: Response, status: number, json: string): void {
  res.status(status).setHeader('content-type', 'application/json; charset=utf-8');
  res.end(json);
}
