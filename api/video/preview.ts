import { compile } from '../../domain/video/compile.js';
import { MissingAssetError } from '../../domain/video/ffmpeg-args.js';
import { PreviewAbandonedError, PreviewFailedError, PreviewQuotaError, type Previews } from '../../pipelines/video/previews.js';
import { previewRequestSchema } from '../../schemas/http/video.js';
import { badRequest, HttpError } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import { authErrors, compileFailed, error } from './errors.js';
import type { VideoRoute } from './route.js';

const MIME = { png: 'image/png', jpeg: 'image/jpeg' } as const;

/** Preview stills: the studio's picture of the scene under its cursor. */
export function previewRoutes(previews: Previews): VideoRoute[] {
  return [
    {
      method: 'post',
      path: '/api/preview',
      summary: 'A still of the film at a time, drawn by ffmpeg at preview quality (PNG or JPEG)',
      scope: 'render:write',
      description:
        'Compiles the script for preview (360p, at most 15 fps) and answers one frame of the scene on screen at `at` seconds (during a transition, the incoming scene, drawn without the blend). Stills are cached by the hash of organization, render graph, time and format; `ETag` is that hash. Assets must be the organization\'s.',
      body: { schema: previewRequestSchema, example: { source: 'film "Demo"\nscene "Hello" 3s\n  title "Hello"', at: 1.5, format: 'png' } },
      responses: {
        200: { description: 'image/png or image/jpeg' },
        400: error('compile_failed (diagnostics in the body), validation_error (the body, or `at` past the end of the film), or an asset that is not the organization\'s'),
        ...authErrors,
        429: error('preview_quota: the organization has PREVIEW_MAX_QUEUED_PER_ORG stills waiting or being drawn (named in message and limit)'),
        502: error('ffmpeg could not draw the still'),
      },
      handle: async (req, res) => {
        const body = parseOr400(previewRequestSchema, req.body, 'preview request');
        const compiled = compile(body.source, { theme: body.theme, variables: body.variables, preview: true });
        if (!compiled.ok) throw compileFailed(compiled.diagnostics);
        const graph = compiled.renderGraph;
        if (body.at > graph.film.durationSeconds) throw badRequest(`at: ${body.at} is past the end of the film (${graph.film.durationSeconds}s)`);
        // Snapped to a frame, so nearby cursor positions share one cached still.
        const at = Math.round(body.at * graph.film.fps) / graph.film.fps;
        // A caller that hangs up (the studio's cursor moved on) frees its turn.
        const left = new AbortController();
        res.on('close', () => left.abort());
        try {
          const { image, key } = await previews.still(req.principal!.orgId, graph, at, body.format, left.signal);
          res.type(MIME[body.format]).setHeader('ETag', `"${key}"`).setHeader('Cache-Control', 'private, max-age=3600').send(image);
        } catch (err) {
          if (err instanceof MissingAssetError) throw badRequest(`asset:${err.assetId} is not an asset of this organization; upload it with POST /api/assets`);
          if (err instanceof PreviewQuotaError) throw new HttpError(429, 'preview_quota', err.message, { limit: 'PREVIEW_MAX_QUEUED_PER_ORG' });
          if (err instanceof PreviewFailedError) throw new HttpError(502, 'preview_failed', err.message);
          if (err instanceof PreviewAbandonedError) return void res.destroy();
          throw err;
        }
      },
    },
  ];
}
