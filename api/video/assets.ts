import type { Request } from 'express';
import { z } from 'zod';
import { ACCEPTED_TYPES, UnsupportedAssetError } from '../../pipelines/video/assets.js';
import { assetListSchema, assetUploadSchema } from '../../schemas/http/video.js';
import { HttpError, notFound } from '../http/errors.js';
import type { VideoApiDeps } from './deps.js';
import { authErrors, error } from './errors.js';
import { pagedListRoute } from './paged-list.js';
import type { VideoRoute } from './route.js';
import { sendMedia } from './send-media.js';
import { readUpload } from './upload.js';

const assetUrl = (req: Request, id: string) => `${req.protocol}://${req.get('host')}/assets/${id}`;

/** Asset uploads, the list and deletion (protected) and the public asset address. */
export function assetRoutes(deps: VideoApiDeps): VideoRoute[] {
  const max = deps.platform.config.ASSET_MAX_BYTES;
  const missing = (id: string) => () => notFound(`no asset ${id}`);
  return [
    {
      method: 'post',
      path: '/api/assets',
      summary: 'Upload an asset (image, video, audio or font)',
      description: `multipart/form-data, the file in the field \`file\`, at most ASSET_MAX_BYTES (default 50 MiB). The type is sniffed from the content, never taken from the name or the part's Content-Type; accepted: ${ACCEPTED_TYPES.join(', ')}. Scripts name it as asset:<assetId>.`,
      scope: 'assets:write',
      responses: {
        201: { description: 'Stored', schema: assetUploadSchema },
        400: error('No file, or a malformed body'),
        ...authErrors,
        413: error('The file is over ASSET_MAX_BYTES'),
        415: error('Not multipart/form-data, or content of no accepted type'),
      },
      handle: async (req, res) => {
        const file = await readUpload(req, res, max);
        try {
          const a = await deps.assets.put(req.principal!.orgId, file.originalname, file.buffer);
          res.status(201).json({ assets: [{ assetId: a.assetId, filename: a.filename, size: a.size, mimetype: a.mimetype, url: assetUrl(req, a.assetId) }] });
        } catch (err) {
          if (err instanceof UnsupportedAssetError) throw new HttpError(415, 'unsupported_media_type', err.message);
          throw err;
        }
      },
    },
    pagedListRoute({
      path: '/api/assets',
      what: 'assets',
      scope: 'assets:read',
      field: 'assets',
      schema: assetListSchema,
      list: (org, limit, cursor) => deps.assets.list(org, limit, cursor),
      present: ({ orgId: _org, ...a }, req) => ({ ...a, url: assetUrl(req, a.assetId) }),
    }),
    {
      method: 'delete',
      path: '/api/assets/:id',
      summary: 'Delete an asset and its bytes',
      description: 'Renders already queued that name it fail; scripts naming it no longer render.',
      scope: 'assets:write',
      params: z.object({ id: z.string().meta({ description: 'The asset id (ast_…)' }) }),
      responses: { 204: { description: 'Deleted' }, ...authErrors, 404: error('No asset of that id in the organization') },
      handle: async (req, res) => {
        const id = String(req.params.id);
        if (!(await deps.assets.remove(req.principal!.orgId, id))) throw notFound(`the organization has no asset ${id}`);
        res.status(204).end();
      },
    },
    {
      method: 'get',
      path: '/assets/:id',
      summary: 'An asset\'s content (public; HTTP range requests supported)',
      authenticated: false,
      params: z.object({ id: z.string() }),
      responses: { 200: { description: 'The content, with its sniffed type' }, 206: { description: 'The requested byte range' }, 404: error('No such asset'), 416: error('The range lies outside the file') },
      handle: async (req: Request, res) => {
        const id = String(req.params.id);
        const meta = await deps.assets.meta(id);
        if (!meta) throw missing(id)();
        res.set('X-Content-Type-Options', 'nosniff');
        await sendMedia(req, res, meta.size, meta.mimetype, (range) => deps.assets.open(id, range), missing(id));
      },
    },
  ];
}
