import type { Readable } from 'node:stream';
import type { Request } from 'express';
import { z } from 'zod';
import { preprocessBreach } from '../../domain/video/preprocess-bounds.js';
import type { SourceRecord } from '../../domain/video/source.js';
import { RemoteMediaError, fetchRemoteMedia } from '../../pipelines/video/remote-media.js';
import { queuePreprocess } from '../../pipelines/video/preprocess-topics.js';
import { SOURCE_TYPES } from '../../pipelines/video/sources.js';
import { randomBytes } from 'node:crypto';
import { preprocessStateSchema, sourceListSchema, sourceRegisterSchema, sourceSchema, sourceUploadFieldsSchema } from '../../schemas/http/video.js';
import { HttpError, badRequest, notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import type { VideoApiDeps } from './deps.js';
import { authErrors, error } from './errors.js';
import { pagedListRoute } from './paged-list.js';
import type { VideoRoute } from './route.js';
import { sendMedia } from './send-media.js';
import { SUBTITLES_MAX_BYTES, mediaRefusal, readSourceUpload } from './source-upload.js';

const base = (req: Request) => `${req.protocol}://${req.get('host')}`;

/** The record as the API answers it: public addresses added, the owner left out. */
export function presentSource({ orgId: _org, ...s }: SourceRecord, req: Request) {
  return {
    ...s,
    // Records written before registration probed have no streams.
    streams: s.streams ?? [],
    mediaUrl: `${base(req)}/sources/${s.id}/media`,
    thumbnails: s.thumbnails.map((t) => ({ ...t, url: `${base(req)}/sources/${s.id}/thumbnails/${t.id}` })),
  };
}

const byId = z.object({ id: z.string().meta({ description: 'The source id (src_…)' }) });

/** A sidecar subtitle file: UTF-8 text holding at least one SRT or WebVTT cue timing. */
function checkSubtitles(file: Buffer): Buffer {
  const text = file.toString('utf8');
  if (text.includes('\uFFFD') || !/\d{2}:\d{2}[:.,\d]*\s*-->\s*\d/.test(text)) throw badRequest('subtitles: not an SRT or WebVTT file (UTF-8 text with cue timings such as 00:00:01,000 --> 00:00:02,500)');
  return file;
}

/** A fetch that failed: the body was well formed, what failed is the address or its answer, so not validation_error. */
const fetchFailed = (err: unknown): never => {
  if (!(err instanceof RemoteMediaError)) throw err;
  const tooLarge = /over the limit/.test(err.message);
  throw new HttpError(tooLarge ? 413 : 400, tooLarge ? 'payload_too_large' : 'source_fetch_failed', err.message);
};

/** Long-form sources: upload or register, list, read, delete (protected) and the public media addresses. */
export function sourceRoutes(deps: VideoApiDeps): VideoRoute[] {
  const { sources, assets } = deps;
  const config = deps.platform.config;
  const max = config.SOURCE_MAX_BYTES;
  const created = { description: 'Stored', schema: sourceSchema };
  return [
    {
      method: 'post',
      path: '/api/sources/upload',
      summary: 'Upload a source (video or audio), optionally with its subtitles',
      description: `multipart/form-data: the media in the field \`file\` (at most SOURCE_MAX_BYTES, default 512 MiB), an optional \`name\` field (default: the file name) and an optional \`subtitles\` file (SRT or WebVTT, at most ${SUBTITLES_MAX_BYTES} bytes) that preprocessing takes as the transcript when the media has no subtitle track. The media streams to storage as it arrives: its type is sniffed from its first bytes (accepted: ${SOURCE_TYPES.join(', ')}) and its size checked as it streams; a refused upload leaves nothing stored.`,
      scope: 'sources:write',
      responses: { 201: created, 400: error('No file, a malformed body, a bad name or subtitles that are not SRT/WebVTT'), ...authErrors, 413: error('The media is over SOURCE_MAX_BYTES, or the subtitles over their limit'), 415: error('Not multipart/form-data, content that is not audio or video (unsupported_media_type), or media ffprobe cannot read (unreadable_media)') },
      handle: async (req, res) => {
        const id = sources.newId();
        const upload = await readSourceUpload(req, res, sources, id, max);
        let record;
        try {
          const fields = parseOr400(sourceUploadFieldsSchema, req.body ?? {}, 'form fields');
          const subtitles = upload.subtitles ? checkSubtitles(upload.subtitles) : undefined;
          record = await sources.register(req.principal!.orgId, id, fields.name ?? (upload.media.originalname || 'source'), upload.media, subtitles);
        } catch (err) {
          // Refused after the media was stored: nothing of it stays.
          await sources.discardMedia(id);
          throw err;
        }
        res.status(201).json(presentSource(record, req));
      },
    },
    {
      method: 'post',
      path: '/api/sources',
      summary: "Register a source from one of the organization's assets or from an address",
      description:
        '`{name, assetId}` copies an audio or video asset; `{name, url}` fetches the address once (http or https, no redirects, at most SOURCE_MAX_BYTES within SOURCE_FETCH_TIMEOUT_MS; addresses resolving to loopback, private or link-local networks are refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true).',
      scope: 'sources:write',
      body: { schema: sourceRegisterSchema },
      responses: { 201: created, 400: error('A bad body, an unusable url or a fetch that failed, naming why'), ...authErrors, 404: error('No asset of that id in the organization'), 413: error('The media is over SOURCE_MAX_BYTES'), 415: error('Content that is not audio or video (unsupported_media_type), or media ffprobe cannot read (unreadable_media)') },
      handle: async (req, res) => {
        const body = parseOr400(sourceRegisterSchema, req.body, 'source');
        const orgId = req.principal!.orgId;
        let content: Readable;
        if ('assetId' in body) {
          const meta = await assets.meta(body.assetId);
          const found = meta?.orgId === orgId ? await assets.open(body.assetId) : null;
          if (!found) throw notFound(`assetId: the organization has no asset ${body.assetId}`);
          content = found.body;
        } else {
          content = await fetchRemoteMedia(body.url, { timeoutMs: config.SOURCE_FETCH_TIMEOUT_MS, maxBytes: max, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS }).catch(fetchFailed);
        }
        // Either way the bytes stream from where they are to the source's blob, never held whole in memory.
        const id = sources.newId();
        const media = await sources.storeMedia(id, body.name, content, max).catch((err: unknown) => {
          // Refused: the rest of the asset or of the answer is not worth reading.
          content.destroy();
          throw mediaRefusal(err, 'assetId' in body ? 'the asset' : 'the media at the url') ?? fetchFailed(err);
        });
        res.status(201).json(presentSource(await sources.register(orgId, id, body.name, media), req));
      },
    },
    pagedListRoute({ path: '/api/sources', what: 'sources', scope: 'sources:read', field: 'sources', schema: sourceListSchema, list: (org, limit, cursor) => sources.list(org, limit, cursor), present: presentSource }),
    {
      method: 'get',
      path: '/api/sources/:id',
      summary: 'A source with everything preprocessing derived',
      scope: 'sources:read',
      params: byId,
      responses: { 200: { description: 'The source', schema: sourceSchema }, ...authErrors, 404: error('No source of that id in the organization') },
      handle: async (req, res) => {
        const id = String(req.params.id);
        const record = await sources.get(req.principal!.orgId, id);
        if (!record) throw notFound(`the organization has no source ${id}`);
        res.json(presentSource(record, req));
      },
    },
    {
      method: 'delete',
      path: '/api/sources/:id',
      summary: 'Delete a source with its media, subtitles, thumbnails and derived records',
      scope: 'sources:write',
      params: byId,
      responses: { 204: { description: 'Deleted' }, ...authErrors, 404: error('No source of that id in the organization') },
      handle: async (req, res) => {
        const id = String(req.params.id);
        if (!(await sources.remove(req.principal!.orgId, id))) throw notFound(`the organization has no source ${id}`);
        res.status(204).end();
      },
    },
    {
      method: 'post',
      path: '/api/sources/:id/preprocess',
      summary: 'Queue preprocessing: metadata, shots with thumbnails, loudness, silences, transcript',
      description:
        'A job on the `sources.preprocess` topic, run by the preprocess workers. While a job is queued or running, another call answers that job again (a retry queues nothing new); after it ends, a call preprocesses anew. The transcript comes from an embedded subtitle track, else from the sidecar subtitles of the upload; what could not be found is a diagnostic.',
      scope: 'sources:write',
      params: byId,
      responses: {
        202: { description: 'Queued (or already queued or running)', schema: preprocessStateSchema },
        ...authErrors,
        404: error('No source of that id in the organization'),
        429: error('preprocess_quota: the organization has PREPROCESS_MAX_CONCURRENT_JOBS sources queued or running (named in message and limit)'),
      },
      handle: async (req, res) => {
        const id = String(req.params.id);
        const orgId = req.principal!.orgId;
        const record = await sources.get(orgId, id);
        if (!record) throw notFound(`the organization has no source ${id}`);
        const { status, progress } = record.preprocess;
        if (status === 'queued' || status === 'running') return void res.status(202).json({ status, progress, diagnostics: record.diagnostics });
        // Read, then written: requests of one organization at the same instant may pass the bound by a job or two.
        const breach = preprocessBreach(await sources.preprocessing(orgId), config.PREPROCESS_MAX_CONCURRENT_JOBS);
        if (breach) throw new HttpError(breach.status, 'preprocess_quota', breach.message, { limit: breach.limit });
        const jobId = `pre_${randomBytes(12).toString('hex')}`;
        // The record names the job before it is queued: the recorder ignores events of any other job.
        const queued = await sources.queuePreprocess(record, jobId);
        try {
          await queuePreprocess(deps.platform, { jobId, orgId, sourceId: id });
        } catch (err) {
          // Not queued: the record says so, instead of a job that stays queued for ever.
          await sources.update({ ...queued, status: 'failed', preprocess: { status: 'failed', progress: 0, jobId }, diagnostics: [{ level: 'error', code: 'queue_unavailable', message: 'the preprocessing queue did not take the job' }] }).catch(() => undefined);
          throw err;
        }
        res.status(202).json({ status: 'queued', progress: 0, diagnostics: [] });
      },
    },
    {
      method: 'get',
      path: '/api/sources/:id/preprocess',
      summary: "The source's preprocessing: status, progress, diagnostics",
      scope: 'sources:read',
      params: byId,
      responses: { 200: { description: 'The latest job', schema: preprocessStateSchema }, ...authErrors, 404: error('No source of that id in the organization, or never preprocessed') },
      handle: async (req, res) => {
        const id = String(req.params.id);
        const record = await sources.get(req.principal!.orgId, id);
        if (!record) throw notFound(`the organization has no source ${id}`);
        const { status, progress } = record.preprocess;
        if (status === 'none') throw notFound(`source ${id} was never preprocessed: POST /api/sources/${id}/preprocess`);
        res.json({ status, progress, diagnostics: record.diagnostics });
      },
    },
    {
      method: 'get',
      path: '/sources/:id/media',
      summary: "A source's media (public; HTTP range requests supported)",
      authenticated: false,
      params: byId,
      responses: { 200: { description: 'The media, with its sniffed type' }, 206: { description: 'The requested byte range' }, 404: error('No such source'), 416: error('The range lies outside the file') },
      handle: async (req, res) => {
        const id = String(req.params.id);
        const missing = () => notFound(`no source ${id}`);
        const record = await sources.byId(id);
        if (!record) throw missing();
        res.set('X-Content-Type-Options', 'nosniff');
        await sendMedia(req, res, record.sizeBytes, record.mimetype, (range) => sources.openMedia(id, range), missing);
      },
    },
    {
      method: 'get',
      path: '/sources/:id/thumbnails/:thumbId',
      summary: "A shot's thumbnail, JPEG (public; HTTP range requests supported)",
      authenticated: false,
      params: byId.extend({ thumbId: z.string().meta({ description: 'th_…, from the source record' }) }),
      responses: { 200: { description: 'The JPEG' }, 206: { description: 'The requested byte range' }, 404: error('No such source or thumbnail'), 416: error('The range lies outside the file') },
      handle: async (req, res) => {
        const [id, thumbId] = [String(req.params.id), String(req.params.thumbId)];
        const missing = () => notFound(`no thumbnail ${thumbId} of source ${id}`);
        const whole = await sources.openThumbnail(id, thumbId);
        if (!whole) throw missing();
        whole.body.destroy();
        res.set('X-Content-Type-Options', 'nosniff');
        await sendMedia(req, res, whole.sizeBytes, 'image/jpeg', (range) => sources.openThumbnail(id, thumbId, range), missing);
      },
    },
  ];
}
