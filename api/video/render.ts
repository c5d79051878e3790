import type { Request } from 'express';
import { z } from 'zod';
import {
  queueSchema,
  renderJobListSchema,
  renderJobSchema,
  renderQueuedSchema,
  renderSourceRequestSchema,
  renderTemplateRequestSchema,
} from '../../schemas/http/video.js';
import type { RenderJob, SubmitResult } from '../../pipelines/video/ports.js';
import { outputKeyOf } from '../../pipelines/video/worker.js';
import { HttpError, notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import type { VideoApiDeps } from './deps.js';
import { SCRIPT_EXAMPLE } from './examples.js';
import { authErrors, error, rejected } from './errors.js';
import { pagedListRoute } from './paged-list.js';
import type { VideoRoute } from './route.js';
import { sendMedia } from './send-media.js';
import { readScriptFile, SCRIPT_FILE_DESCRIPTION } from './upload.js';

const base = (req: Request) => `${req.protocol}://${req.get('host')}`;

/** A job as GET /api/render/{id} answers it (CONTRACTS.md 8): addresses made absolute. */
export function presentJob(job: RenderJob, origin: string) {
  const { orgId: _org, ...rest } = job;
  return { ...rest, ...(job.output ? { output: { ...job.output, url: `${origin}${job.output.url}` } } : {}) };
}

export function queued(req: Request, result: SubmitResult) {
  if (!result.ok) throw rejected(result.rejection);
  const statusUrl = `${base(req)}/api/render/${result.job.jobId}`;
  return { jobId: result.job.jobId, status: 'queued' as const, message: `the render is queued; poll GET ${statusUrl} until its status is complete or failed`, statusUrl };
}

const jobId = z.object({ id: z.string().meta({ description: 'The job id' }) });
const accepted = { 202: { description: 'Queued; poll statusUrl', schema: renderQueuedSchema } };
const compileErrors = {
  400: error('compile_failed (every diagnostic in the body; unknown-asset or unknown-source for one that is not the organization\'s), validation_error, or render_too_large naming the per-job limit passed (RENDER_MAX_JOB_SECONDS, RENDER_MAX_JOB_PIXEL_FRAMES)'),
  ...authErrors,
  429: error("render_quota: the organization's RENDER_MAX_CONCURRENT_JOBS or RENDER_MAX_SECONDS_PER_DAY is reached (named in message and limit)"),
};

/** Render queue, job status and finished videos. */
export function renderRoutes(deps: VideoApiDeps): VideoRoute[] {
  const jobOf = async (req: Request): Promise<RenderJob> => {
    const id = String(req.params.id);
    const job = await deps.jobs.get(req.principal!.orgId, id);
    if (!job) throw notFound(`the organization has no render job ${id}`);
    return job;
  };
  return [
    {
      method: 'post',
      path: '/api/render',
      summary: 'Render a script to MP4 (asynchronous)',
      description: 'Compiles the script; if it compiles, queues a render and answers 202 with the job. Every asset the script names must be one of the organization\'s.',
      scope: 'render:write',
      body: { schema: renderSourceRequestSchema, example: SCRIPT_EXAMPLE },
      responses: { ...accepted, ...compileErrors },
      handle: async (req, res) => {
        const body = parseOr400(renderSourceRequestSchema, req.body, 'render request');
        res.status(202).json(queued(req, await deps.jobs.submitSource(req.principal!.orgId, body)));
      },
    },
    {
      method: 'post',
      path: '/api/render/file',
      summary: 'Render an uploaded script file',
      description: SCRIPT_FILE_DESCRIPTION,
      scope: 'render:write',
      responses: { ...accepted, ...compileErrors, 413: error('The file is over the limit'), 415: error('Not multipart/form-data') },
      handle: async (req, res) => {
        const file = await readScriptFile(req, res);
        res.status(202).json(queued(req, await deps.jobs.submitSource(req.principal!.orgId, { ...file, origin: 'file' })));
      },
    },
    {
      method: 'post',
      path: '/api/render/template',
      summary: 'Render a saved template with variables',
      description: "Variables are checked against the template's schema: a required one missing, one of the wrong type or one the template does not declare answers 400 invalid_variables naming each; defaults fill those left out.",
      scope: 'render:write',
      body: { schema: renderTemplateRequestSchema, example: { template: 'launch', variables: { product: 'Weir' }, preview: true } },
      responses: { ...accepted, ...compileErrors, 404: error('No template of that name in the organization') },
      handle: async (req, res) => {
        const body = parseOr400(renderTemplateRequestSchema, req.body, 'render request');
        res.status(202).json(queued(req, await deps.jobs.submitTemplate(req.principal!.orgId, body)));
      },
    },
    pagedListRoute({
      path: '/api/render',
      what: 'render jobs',
      scope: 'render:read',
      field: 'jobs',
      schema: renderJobListSchema,
      list: (org, limit, cursor) => deps.store.list(org, limit, cursor),
      present: (job, req) => presentJob(job, base(req)),
    }),
    {
      method: 'get',
      path: '/api/render/:id',
      summary: 'A render job: status, progress, output once complete, errors once failed',
      scope: 'render:read',
      params: jobId,
      responses: { 200: { description: 'The job', schema: renderJobSchema }, ...authErrors, 404: error('No such job in the organization') },
      handle: async (req, res) => void res.json(presentJob(await jobOf(req), base(req))),
    },
    {
      method: 'get',
      path: '/api/video/:id',
      summary: 'The MP4 of a complete job (HTTP range requests supported)',
      scope: 'render:read',
      params: jobId,
      responses: {
        200: { description: 'video/mp4' },
        206: { description: 'The requested byte range' },
        ...authErrors,
        404: error('No such job in the organization, or not complete'),
        416: error('The range lies outside the file'),
      },
      handle: async (req, res) => {
        const job = await jobOf(req);
        if (job.status !== 'complete' || !job.output) throw notFound(`render job ${job.jobId} has no video: its status is ${job.status}`);
        const key = outputKeyOf(job.orgId, job.jobId);
        await sendMedia(req, res, job.output.sizeBytes, 'video/mp4', (range) => deps.platform.blobs.get(key, range), () => new HttpError(404, 'not_found', `the video of job ${job.jobId} is missing from the blob store`));
      },
    },
    {
      method: 'get',
      path: '/api/queue',
      summary: 'Render queue depth, the workers and their load, and the organization\'s jobs rendering now',
      scope: 'render:read',
      responses: { 200: { description: 'Queue state', schema: queueSchema }, ...authErrors },
      handle: async (req, res) => {
        const [{ depth, inFlight }, workers] = await Promise.all([deps.store.queue(req.principal!.orgId), deps.store.workers()]);
        res.json({ depth, workers: workers.map(({ jobs: _jobs, ...w }) => w), inFlight: inFlight.map((j) => presentJob(j, base(req))) });
      },
    },
  ];
}
