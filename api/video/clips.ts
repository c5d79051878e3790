import type { Request } from 'express';
import { z } from 'zod';
import { ClipRefusal, type ClipRefusalKind } from '../../pipelines/video/clips.js';
import {
  candidatesRequestSchema,
  candidatesResponseSchema,
  clipDocumentCreateSchema,
  draftRequestSchema,
  draftSchema,
  exportQuerySchema,
  redraftSchema,
  refinedSchema,
  windowRequestSchema,
} from '../../schemas/http/video-clips.js';
import { documentSchema } from '../../schemas/http/video-documents.js';
import { HttpError } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import type { VideoApiDeps } from './deps.js';
import { refusing } from './document-errors.js';
import { callerOf, idempotency, ifMatch, preconditionOf, sendDocument } from './documents.js';
import { authErrors, compileFailed, error } from './errors.js';
import type { VideoRoute } from './route.js';

/** Clips of long-form sources (docs/video-clips.md): candidates, refined windows, drafts and clip documents. */

const STATUS: Record<ClipRefusalKind, [number, string]> = {
  source_not_found: [404, 'not_found'],
  not_preprocessed: [409, 'not_preprocessed'],
  bad_window: [400, 'invalid_window'],
  not_a_clip: [409, 'not_a_clip'],
  no_candidates: [422, 'no_candidates'],
};

/** Runs a clip call, its refusals (and the document service's) turned into the HTTP errors of the same meaning. */
export async function clipCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await refusing(call);
  } catch (err) {
    if (!(err instanceof ClipRefusal)) throw err;
    const [status, code] = STATUS[err.kind];
    throw new HttpError(status, code, err.message, err.extra);
  }
}

const byId = z.object({ id: z.string().meta({ description: 'The clip document id' }) });
const sourceErrors = {
  ...authErrors,
  404: error('No source of that id in the organization'),
  409: error('not_preprocessed: the source has not been preprocessed (or is still being preprocessed)'),
};
const windowErrors = { 400: error('validation_error naming the field, or invalid_window: end past the end of the source'), ...sourceErrors };
const orgOf = (req: Request) => req.principal!.orgId;

export function clipRoutes(deps: VideoApiDeps): VideoRoute[] {
  const { clips } = deps;
  return [
    {
      method: 'post',
      path: '/api/clips/candidates',
      summary: 'Clip candidates for a goal: windows of 15–60 s of a preprocessed source, best first',
      description:
        "Windows of consecutive sentences (subtitle cues, or the recogniser's words split at pauses) scored by BM25 of the goal's terms over the source's sentences, whether the first sentence says a goal term, edges near shot cuts and silences, the share of the window that is not silent, and length; picked greedily so that none overlaps another by more than 30% of the shorter. No goal term in the transcript: no candidates, and a reason.",
      scope: 'sources:read',
      body: { schema: candidatesRequestSchema },
      responses: { 200: { description: 'The candidates (possibly none, with a reason)', schema: candidatesResponseSchema }, 400: error('validation_error naming the field'), ...sourceErrors },
      handle: async (req, res) => {
        const body = parseOr400(candidatesRequestSchema, req.body, 'candidates request');
        res.json(await clipCall(() => clips.candidates(orgOf(req), body)));
      },
    },
    {
      method: 'post',
      path: '/api/clips/candidates/refine',
      summary: "Snap a window to the source's sentences and to a shot cut within a second",
      description: 'Each edge moves out to the sentence it cuts into, then to the nearest shot cut within 1 s; an edge with no cut near gets 0.25 s of margin, never into the neighbouring sentence. startsOn and endsOn say what each edge landed on.',
      scope: 'sources:read',
      body: { schema: windowRequestSchema },
      responses: { 200: { description: 'The refined window', schema: refinedSchema }, ...windowErrors },
      handle: async (req, res) => {
        const body = parseOr400(windowRequestSchema, req.body, 'window');
        res.json(await clipCall(() => clips.refine(orgOf(req), body)));
      },
    },
    {
      method: 'post',
      path: '/api/clips/draft',
      summary: "A clip's script and render graph for a window, stored nowhere",
      description: 'The script plays the window (video source:<id> from … to …) with each sentence said in it as a timed caption.',
      scope: 'sources:read',
      body: { schema: draftRequestSchema },
      responses: { 200: { description: 'The script, its render graph and any warnings', schema: draftSchema }, ...windowErrors },
      handle: async (req, res) => {
        const body = parseOr400(draftRequestSchema, req.body, 'draft request');
        const draft = await clipCall(() => clips.draft(orgOf(req), body));
        if (!draft.ok) throw compileFailed(draft.diagnostics);
        res.json({ source: draft.source, renderGraph: draft.renderGraph, diagnostics: draft.diagnostics });
      },
    },
    {
      method: 'post',
      path: '/api/clips/documents',
      summary: 'A clip document: a persisted document whose script cuts the window and burns in its captions',
      description: 'Version 1 of a document (docs/video-documents.md) whose metadata.clip is {sourceId, start, end}. Render it with POST /api/documents/{id}/render.',
      scope: 'documents:write',
      headers: idempotency,
      body: { schema: clipDocumentCreateSchema },
      responses: { 201: { description: 'Created; ETag "v1"', schema: documentSchema }, 200: { description: 'A retry with the same Idempotency-Key: the document it created', schema: documentSchema }, ...windowErrors },
      handle: async (req, res) => {
        const body = parseOr400(clipDocumentCreateSchema, req.body, 'clip document');
        const r = await clipCall(() => clips.createDocument(callerOf(req.principal!), body, req.get('idempotency-key') || undefined));
        sendDocument(res, r.document, r.created ? 201 : 200);
      },
    },
    {
      method: 'post',
      path: '/api/clips/documents/:id/redraft',
      summary: 'Draft a clip document anew for a new window or goal (a new version)',
      description: 'start and/or end change the window; goal takes the best candidate for it. The script is drafted anew from the transcript (edits to the old script are replaced) and metadata.clip follows. Honours If-Match and edit locks as PUT does.',
      scope: 'documents:write',
      params: byId,
      headers: ifMatch,
      body: { schema: redraftSchema },
      responses: {
        200: { description: 'The new version', schema: documentSchema },
        ...windowErrors,
        404: error('No such document, or its source is gone'),
        409: error('not_preprocessed, not_a_clip (the document has no metadata.clip), or busy'),
        412: error('If-Match does not name the current version'),
        422: error('no_candidates: the goal is not said in the transcript (the reason is in the body)'),
        423: error('Another principal holds the edit lock'),
      },
      handle: async (req, res) => {
        const body = parseOr400(redraftSchema, req.body, 'redraft request');
        sendDocument(res, await clipCall(() => clips.redraft(callerOf(req.principal!), String(req.params.id), body, preconditionOf(req))));
      },
    },
    {
      method: 'get',
      path: '/api/clips/documents/:id/export',
      summary: 'Export a clip document: its script as text/plain, or the document as JSON',
      scope: 'documents:read',
      params: byId,
      query: exportQuerySchema,
      responses: {
        200: { description: 'format=json: the document; format=script: the script, text/plain', schema: documentSchema },
        400: error('A bad format'),
        ...authErrors,
        404: error('No such document in the organization'),
        409: error('not_a_clip: the document has no metadata.clip'),
      },
      handle: async (req, res) => {
        const { format } = parseOr400(exportQuerySchema, req.query, 'query string');
        const doc = await clipCall(() => clips.exported(callerOf(req.principal!), String(req.params.id)));
        if (format === 'json') return void res.set('ETag', `"v${doc.version}"`).json(doc);
        const file = doc.name.replace(/[^\w.-]+/g, '-').slice(0, 80) || 'clip';
        res.set('ETag', `"v${doc.version}"`).set('Content-Disposition', `attachment; filename="${file}.script"`).type('text/plain; charset=utf-8').send(doc.source);
      },
    },
  ];
}
