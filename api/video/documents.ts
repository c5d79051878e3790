import type { Request, Response } from 'express';
import { z } from 'zod';
import { expectingVersion, type Caller, type Precondition } from '../../pipelines/video/documents.js';
import {
  annotationCreateSchema,
  annotationListSchema,
  annotationPatchSchema,
  annotationSchema,
  documentCompileFailedSchema,
  documentCreateSchema,
  documentEditSchema,
  documentListSchema,
  documentPutSchema,
  documentRenderQueuedSchema,
  documentSchema,
  lockHeldSchema,
  lockRequestSchema,
  lockSchema,
  pageQuerySchema,
  versionListSchema,
  versionSchema,
  versionsQuerySchema,
} from '../../schemas/http/video-documents.js';
import type { Principal } from '../http/auth.js';
import { forbidden } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import { scopesOf } from './auth/resolver.js';
import type { VideoApiDeps } from './deps.js';
import { refusing } from './document-errors.js';
import { authErrors, error } from './errors.js';
import { queued } from './render.js';
import type { VideoRoute } from './route.js';

/**
 * Persisted script documents (docs/video-documents.md): CRUD with immutable versions, ETag and
 * If-Match, edit locks, annotations, structured edits and renders of the current version.
 */

const byId = z.object({ id: z.string().meta({ description: 'The document id' }) });
const byVersion = byId.extend({ version: z.coerce.number().int().min(1).meta({ description: 'A version number' }) });
const byAnnotation = byId.extend({ annotationId: z.string().meta({ description: 'The annotation id' }) });
export const ifMatch = z.object({ 'if-match': z.string().optional().meta({ description: 'The ETag "v<version>" the change is based on; a mismatch is 412. Optional.' }) });
export const idempotency = z.object({ 'idempotency-key': z.string().max(200).optional().meta({ description: 'A retry with the same key answers the document the first request created (200) instead of creating another' }) });

const notFound = { 404: error('No such document (or version, or annotation) in the organization') };
const locked = { 423: { description: 'Another principal holds the edit lock: the body names owner and expiresAt', schema: lockHeldSchema } };
const precondition = { 412: error('If-Match does not name the current version; the body carries currentVersion') };
const writeErrors = { 400: error('validation_error naming the field'), ...authErrors, ...notFound, ...precondition, ...locked, 409: error('busy: other writes kept winning; retry') };

/** Who acts on documents: the organization, and the principal that authors versions and owns locks. */
export const callerOf = (p: Principal): Caller => ({ orgId: p.orgId, principal: p.principalId ?? p.orgId });
const caller = (req: Request): Caller => callerOf(req.principal!);
const param = (req: Request, name: string) => String(req.params[name]);

/** An If-Match or If-None-Match header as a test of a version: `*` or any of the listed ETags "v<N>" (weak or strong). */
function etagTest(req: Request, header: 'if-match' | 'if-none-match'): Precondition {
  const value = req.get(header);
  if (value === undefined) return undefined;
  const tags = value.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return (version) => tags.includes('*') || tags.includes(`"v${version}"`);
}
export const preconditionOf = (req: Request) => etagTest(req, 'if-match');

export const sendDocument = (res: Response, doc: { version: number }, status = 200) => void res.status(status).set('ETag', `"v${doc.version}"`).json(doc);

export function documentRoutes(deps: VideoApiDeps): VideoRoute[] {
  const docs = deps.documents;
  return [
    {
      method: 'post',
      path: '/api/documents',
      summary: 'Create a document (version 1)',
      scope: 'documents:write',
      headers: idempotency,
      body: { schema: documentCreateSchema },
      responses: { 201: { description: 'Created; ETag "v1"', schema: documentSchema }, 200: { description: 'A retry with the same Idempotency-Key: the document it created', schema: documentSchema }, 400: error('validation_error naming the field'), ...authErrors },
      handle: async (req, res) => {
        const body = parseOr400(documentCreateSchema, req.body, 'document');
        const r = await refusing(() => docs.create(caller(req), body, req.get('idempotency-key') || undefined));
        sendDocument(res, r.document, r.created ? 201 : 200);
      },
    },
    {
      method: 'get',
      path: '/api/documents',
      summary: 'The documents of the organization, in pages',
      scope: 'documents:read',
      query: pageQuerySchema,
      responses: { 200: { description: 'A page of documents, without their sources', schema: documentListSchema }, 400: error('A bad limit or cursor'), ...authErrors },
      handle: async (req, res) => void res.json(await docs.list(caller(req), parseOr400(pageQuerySchema, req.query, 'query string'))),
    },
    {
      method: 'get',
      path: '/api/documents/:id',
      summary: 'A document: its current version, with ETag "v<version>"',
      scope: 'documents:read',
      params: byId,
      headers: z.object({ 'if-none-match': z.string().optional().meta({ description: 'The ETag the caller holds: 304 while it is still current' }) }),
      responses: { 200: { description: 'The document', schema: documentSchema }, 304: { description: 'If-None-Match names the current version' }, ...authErrors, ...notFound },
      handle: async (req, res) => {
        const doc = await refusing(() => docs.get(caller(req), param(req, 'id')));
        if (etagTest(req, 'if-none-match')?.(doc.version)) return void res.status(304).set('ETag', `"v${doc.version}"`).end();
        sendDocument(res, doc);
      },
    },
    {
      method: 'put',
      path: '/api/documents/:id',
      summary: 'Replace source, metadata and/or name (a new version)',
      scope: 'documents:write',
      params: byId,
      headers: ifMatch,
      body: { schema: documentPutSchema },
      responses: { 200: { description: 'The new version', schema: documentSchema }, ...writeErrors },
      handle: async (req, res) => {
        const { name, source, metadata, version } = parseOr400(documentPutSchema, req.body, 'document');
        const change = { ...(name === undefined ? {} : { name }), ...(source === undefined ? {} : { source }), ...(metadata === undefined ? {} : { metadata }) };
        const precondition = preconditionOf(req) ?? expectingVersion(version);
        sendDocument(res, await refusing(() => docs.put(caller(req), param(req, 'id'), change, precondition)));
      },
    },
    {
      method: 'delete',
      path: '/api/documents/:id',
      summary: 'Delete a document (its history stays, unreachable)',
      scope: 'documents:write',
      params: byId,
      headers: ifMatch,
      responses: { 204: { description: 'Deleted' }, ...writeErrors },
      handle: async (req, res) => {
        await refusing(() => docs.remove(caller(req), param(req, 'id'), preconditionOf(req)));
        res.status(204).end();
      },
    },
    {
      method: 'get',
      path: '/api/documents/:id/versions',
      summary: 'The versions of a document, newest first, in pages',
      scope: 'documents:read',
      params: byId,
      query: versionsQuerySchema,
      responses: { 200: { description: 'Versions: number, kind, author, time, the operations of an edit', schema: versionListSchema }, 400: error('A bad limit or cursor'), ...authErrors, ...notFound },
      handle: async (req, res) => {
        const q = parseOr400(versionsQuerySchema, req.query, 'query string');
        res.json(await refusing(() => docs.versions(caller(req), param(req, 'id'), { limit: q.limit, before: q.cursor })));
      },
    },
    {
      method: 'get',
      path: '/api/documents/:id/versions/:version',
      summary: "One version's name, source and metadata",
      scope: 'documents:read',
      params: byVersion,
      responses: { 200: { description: 'The version', schema: versionSchema }, ...authErrors, ...notFound },
      handle: async (req, res) => {
        const { id, version } = parseOr400(byVersion, req.params, 'path');
        res.json(await refusing(() => docs.version(caller(req), id, version)));
      },
    },
    {
      method: 'post',
      path: '/api/documents/:id/versions/:version/restore',
      summary: 'Make an earlier version current again (a new version of kind restore)',
      scope: 'documents:write',
      params: byVersion,
      headers: ifMatch,
      responses: { 200: { description: 'The new version', schema: documentSchema }, ...writeErrors },
      handle: async (req, res) => {
        const { id, version } = parseOr400(byVersion, req.params, 'path');
        sendDocument(res, await refusing(() => docs.restore(caller(req), id, version, preconditionOf(req))));
      },
    },
    {
      method: 'post',
      path: '/api/documents/:id/edit',
      summary: 'Structured edits: JSON Patch operations over the parsed script, applied to its source',
      description:
        'Operations apply in order, all or none, to the source text at the parser\'s positions; the result must compile. Addresses: /title, /mood, /scenes/<i> (add, remove, move; - appends), /scenes/<i>/name, /scenes/<i>/duration (seconds), /scenes/<i>/transition ({kind, duration?}; remove for the mood\'s default), /scenes/<i>/layers/<j>/text; test checks any address of the JSON view first.',
      scope: 'documents:write',
      params: byId,
      headers: ifMatch,
      body: { schema: documentEditSchema },
      responses: {
        200: { description: 'The new version', schema: documentSchema },
        ...writeErrors,
        400: error('validation_error, or invalid_edit naming the operation (op) and what is wrong with its address or value'),
        409: error('test_failed: a test operation did not hold (op names it); or busy'),
        422: { description: 'The edited script does not compile: every diagnostic; nothing was written', schema: documentCompileFailedSchema },
      },
      handle: async (req, res) => {
        const { ops } = parseOr400(documentEditSchema, req.body, 'edit');
        sendDocument(res, await refusing(() => docs.edit(caller(req), param(req, 'id'), ops, preconditionOf(req))));
      },
    },
    {
      method: 'post',
      path: '/api/documents/:id/render',
      summary: 'Render the current version to MP4 (asynchronous); the job records the version',
      description: 'Needs render:write and documents:read. GET /api/render/{jobId} shows document {id, version}.',
      scope: 'render:write',
      params: byId,
      responses: { 202: { description: 'Queued', schema: documentRenderQueuedSchema }, 400: error('compile_failed, with unknown-asset or unknown-source for an asset or source that is not the organization\'s'), ...authErrors, 403: error('The credential lacks documents:read'), ...notFound },
      handle: async (req, res) => {
        if (!scopesOf(req.principal!).includes('documents:read')) throw forbidden('this credential lacks the scope documents:read');
        const { result, version } = await refusing(() => docs.render(caller(req), param(req, 'id')));
        res.status(202).json({ ...queued(req, result), documentId: param(req, 'id'), version });
      },
    },
    {
      method: 'post',
      path: '/api/documents/:id/lock',
      summary: 'Take the edit lock, or renew yours',
      description: 'One atomic compare-and-set in the window store, so it holds across API processes. While you hold it, other principals\' writes are 423. Default 120 s.',
      scope: 'documents:write',
      params: byId,
      body: { schema: lockRequestSchema },
      responses: { 200: { description: 'Yours until expiresAt', schema: lockSchema }, 400: error('ttlSeconds out of bounds'), ...authErrors, ...notFound, 409: { description: 'Another principal holds it: owner and expiresAt', schema: lockHeldSchema } },
      handle: async (req, res) => {
        const { ttlSeconds } = parseOr400(lockRequestSchema, req.body ?? {}, 'lock request');
        res.json(await refusing(() => docs.lock(caller(req), param(req, 'id'), ttlSeconds)));
      },
    },
    {
      method: 'get',
      path: '/api/documents/:id/lock',
      summary: 'Whether the document is locked, by whom and until when',
      scope: 'documents:read',
      params: byId,
      responses: { 200: { description: 'The lock state', schema: documentSchema.shape.lock }, ...authErrors, ...notFound },
      handle: async (req, res) => void res.json(await refusing(() => docs.readLock(caller(req), param(req, 'id')))),
    },
    {
      method: 'delete',
      path: '/api/documents/:id/lock',
      summary: 'Release your edit lock',
      scope: 'documents:write',
      params: byId,
      responses: { 204: { description: 'Released (or there was none)' }, ...authErrors, ...notFound, 409: { description: 'Another principal holds it', schema: lockHeldSchema } },
      handle: async (req, res) => {
        await refusing(() => docs.unlock(caller(req), param(req, 'id')));
        res.status(204).end();
      },
    },
    {
      method: 'post',
      path: '/api/documents/:id/annotations',
      summary: 'Annotate lines or a scene of a version (or reply to an annotation)',
      description: 'The annotation moves with its scene as the document changes, and is marked outdated when the lines it is about are gone.',
      scope: 'documents:write',
      params: byId,
      body: { schema: annotationCreateSchema },
      responses: {
        201: { description: 'Added', schema: annotationSchema },
        400: error('validation_error, or invalid_anchor: the lines or scene are not in that version, or no such parent'),
        ...authErrors,
        ...notFound,
        409: error('too_many_annotations: the document keeps 500 at most'),
      },
      handle: async (req, res) => {
        const body = parseOr400(annotationCreateSchema, req.body, 'annotation');
        res.status(201).json(await refusing(() => docs.annotate(caller(req), param(req, 'id'), body)));
      },
    },
    {
      method: 'get',
      path: '/api/documents/:id/annotations',
      summary: 'The annotations of a document, oldest first',
      scope: 'documents:read',
      params: byId,
      responses: { 200: { description: 'Annotations', schema: annotationListSchema }, ...authErrors, ...notFound },
      handle: async (req, res) => void res.json({ annotations: await refusing(() => docs.annotations(caller(req), param(req, 'id'))) }),
    },
    {
      method: 'patch',
      path: '/api/documents/:id/annotations/:annotationId',
      summary: 'Resolve an annotation (or reopen it)',
      scope: 'documents:write',
      params: byAnnotation,
      body: { schema: annotationPatchSchema },
      responses: { 200: { description: 'The annotation', schema: annotationSchema }, 400: error('validation_error'), ...authErrors, ...notFound },
      handle: async (req, res) => {
        const { resolved } = parseOr400(annotationPatchSchema, req.body, 'annotation change');
        res.json(await refusing(() => docs.resolveAnnotation(caller(req), param(req, 'id'), param(req, 'annotationId'), resolved)));
      },
    },
    {
      method: 'delete',
      path: '/api/documents/:id/annotations/:annotationId',
      summary: 'Delete an annotation and its replies',
      scope: 'documents:write',
      params: byAnnotation,
      responses: { 204: { description: 'Deleted' }, ...authErrors, ...notFound },
      handle: async (req, res) => {
        await refusing(() => docs.deleteAnnotation(caller(req), param(req, 'id'), param(req, 'annotationId')));
        res.status(204).end();
      },
    },
  ];
}
