import type { Request } from 'express';
import type { ZodType } from 'zod';
import type { VideoScope } from '../../domain/video/scopes.js';
import { pageQuerySchema } from '../../schemas/http/video.js';
import { parseOr400 } from '../http/validate.js';
import { authErrors, badCursor, error } from './errors.js';
import type { VideoRoute } from './route.js';

/** A page a store answers; undefined for a cursor it did not make. */
type Lister<T> = (orgId: string, limit: number, cursor?: string) => Promise<{ items: T[]; nextCursor: string | null } | undefined>;

/** A GET route listing the organization's items newest first, paged by `limit` and `cursor` (every video list has this shape). */
export function pagedListRoute<T>(o: { path: string; what: string; scope: VideoScope; field: string; schema: ZodType; list: Lister<T>; present: (item: T, req: Request) => unknown }): VideoRoute {
  return {
    method: 'get',
    path: o.path,
    summary: `The organization's ${o.what}, newest first, paged`,
    scope: o.scope,
    query: pageQuerySchema,
    responses: { 200: { description: `A page of ${o.what}`, schema: o.schema }, 400: error('limit out of bounds or a cursor this service did not make'), ...authErrors },
    handle: async (req, res) => {
      const q = parseOr400(pageQuerySchema, req.query, 'query');
      const page = await o.list(req.principal!.orgId, q.limit, q.cursor);
      if (!page) throw badCursor();
      res.json({ [o.field]: page.items.map((item) => o.present(item, req)), nextCursor: page.nextCursor });
    },
  };
}
