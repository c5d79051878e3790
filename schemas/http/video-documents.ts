import { z } from 'zod';
import {
  DEFAULT_PAGE,
  MAX_ANNOTATION_CHARS,
  MAX_DOCUMENT_METADATA_CHARS,
  MAX_DOCUMENT_NAME_CHARS,
  MAX_DOCUMENT_SOURCE_CHARS,
  MAX_EDIT_OPS,
  MAX_LOCK_SECONDS,
  MAX_PAGE,
  MIN_LOCK_SECONDS,
} from '../../domain/video/document-bounds.js';
import { diagnosticSchema } from './video.js';

/** Wire schemas of persisted script documents (docs/video-documents.md): bodies and the OpenAPI document. */

const EXAMPLE_SOURCE = 'film "Launch Day"\nmood confident\n\nscene "Intro" 3s\n  title "Hello"\n  transition fade 0.5s\n\nscene "Outro" 2s\n  text "Ships today"\n';

/** Reserved metadata: `clip` says which window of which long-form source a clip document cuts. */
const clipSchema = z
  .strictObject({
    sourceId: z.string().min(1).max(100),
    start: z.number().min(0).meta({ description: 'Seconds from the start of the source' }),
    end: z.number().min(0),
  })
  .refine((c) => c.end > c.start, { message: 'end must be after start', path: ['end'] })
  .meta({ description: 'The source window a clip document cuts' });

export const documentMetadataSchema = z
  .looseObject({ clip: clipSchema.optional() })
  .refine((m) => JSON.stringify(m).length <= MAX_DOCUMENT_METADATA_CHARS, { message: `metadata is at most ${MAX_DOCUMENT_METADATA_CHARS} characters as JSON` })
  .meta({ description: 'Free-form JSON object kept with each version; the key clip is reserved for clip documents', example: { owner: 'marketing', clip: { sourceId: 'src_1', start: 12.5, end: 41 } } });

const name = z.string().trim().min(1).max(MAX_DOCUMENT_NAME_CHARS);
const source = z.string().min(1).max(MAX_DOCUMENT_SOURCE_CHARS).meta({ description: 'Script text (docs/video-script.md)' });

export const documentCreateSchema = z
  .strictObject({ name, source, metadata: documentMetadataSchema.optional() })
  .meta({ id: 'DocumentCreate', example: { name: 'Launch film', source: EXAMPLE_SOURCE, metadata: { owner: 'marketing' } } });

const lockStateSchema = z
  .object({ locked: z.boolean(), owner: z.string().optional().meta({ description: 'The principal holding the lock' }), expiresAt: z.string().optional() })
  .meta({ id: 'DocumentLockState' });

export const documentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    source: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    version: z.number().int().min(1).meta({ description: 'The current version; the ETag is "v<version>"' }),
    createdAt: z.string(),
    updatedAt: z.string(),
    updatedBy: z.string().meta({ description: 'The principal that made the current version' }),
    lock: lockStateSchema,
  })
  .meta({
    id: 'Document',
    example: {
      id: 'doc_4f1c2a9e8b7d6c5b4a3f2e1d',
      name: 'Launch film',
      source: EXAMPLE_SOURCE,
      metadata: { owner: 'marketing' },
      version: 3,
      createdAt: '2026-11-26T08:00:00.000Z',
      updatedAt: '2026-11-26T08:05:00.000Z',
      updatedBy: 'key_0123456789abcdef',
      lock: { locked: false },
    },
  });

/**
 * A change of name, source and/or metadata. GET's whole answer is taken back as it is: its `version`
 * acts as If-Match when no header gives one, and the other fields GET adds are read-only and ignored.
 */
export const documentPutSchema = z
  .strictObject({
    name: name.optional(),
    source: source.optional(),
    metadata: documentMetadataSchema.optional(),
    version: z.number().int().min(1).optional().meta({ description: 'The version this change is based on, as If-Match "v<version>" (a mismatch is 412); ignored when an If-Match header is sent' }),
    ...documentSchema.pick({ id: true, createdAt: true, updatedAt: true, updatedBy: true, lock: true }).partial().shape,
  })
  .refine((b) => b.name !== undefined || b.source !== undefined || b.metadata !== undefined, { message: 'give source, metadata or name' })
  .meta({ id: 'DocumentPut', example: { source: EXAMPLE_SOURCE.replace('3s', '4s') } });

export const documentListSchema = z
  .object({
    documents: z.array(documentSchema.omit({ source: true, lock: true })).meta({ description: 'In id order, without their sources' }),
    nextCursor: z.string().nullable().meta({ description: 'Pass as cursor for the next page; null on the last page' }),
  })
  .meta({ id: 'DocumentList' });

export const pageQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(DEFAULT_PAGE).meta({ description: `At most ${MAX_PAGE}; default ${DEFAULT_PAGE}` }),
  cursor: z.string().max(200).optional().meta({ description: 'nextCursor of the previous page' }),
});

export const versionsQuerySchema = z.strictObject({
  limit: pageQuerySchema.shape.limit,
  cursor: z.coerce.number().int().min(1).optional().meta({ description: 'nextCursor of the previous page: versions older than it' }),
});

export const editOpSchema = z
  .discriminatedUnion('op', [
    z.strictObject({ op: z.enum(['add', 'replace', 'test']), path: z.string().max(200), value: z.unknown() }),
    z.strictObject({ op: z.literal('remove'), path: z.string().max(200) }),
    z.strictObject({ op: z.literal('move'), from: z.string().max(200), path: z.string().max(200) }),
  ])
  .meta({ id: 'DocumentEditOp', description: 'A JSON Patch operation (RFC 6902) over the JSON view of the script; docs/video-documents.md lists the addresses' });

const opsSchema = z.array(editOpSchema).min(1).max(MAX_EDIT_OPS);

const versionSummarySchema = z.object({
  version: z.number().int(),
  kind: z.enum(['create', 'put', 'edit', 'restore']),
  author: z.string(),
  createdAt: z.string(),
  ops: opsSchema.optional().meta({ description: 'The operations of an edit' }),
  restoredFrom: z.number().int().optional().meta({ description: 'The version a restore brought back' }),
});

export const documentEditSchema = z
  .strictObject({ ops: opsSchema })
  .meta({
    id: 'DocumentEdit',
    example: {
      ops: [
        { op: 'test', path: '/scenes/0/name', value: 'Intro' },
        { op: 'replace', path: '/scenes/0/duration', value: 4 },
        { op: 'replace', path: '/scenes/1/layers/0/text', value: 'Out now' },
        { op: 'replace', path: '/mood', value: 'cinematic' },
        { op: 'add', path: '/scenes/1', value: { name: 'Feature', duration: 2.5, lines: ['text "Faster renders"'] } },
        { op: 'move', from: '/scenes/2', path: '/scenes/0' },
      ],
    },
  });

export const versionListSchema = z
  .object({ versions: z.array(versionSummarySchema).meta({ description: 'Newest first' }), nextCursor: z.string().nullable().meta({ description: 'Pass as cursor for the next page; null on the last page' }) })
  .meta({ id: 'DocumentVersionList' });

export const versionSchema = versionSummarySchema
  .extend({ name: z.string(), source: z.string(), metadata: z.record(z.string(), z.unknown()) })
  .meta({ id: 'DocumentVersion' });

export const lockRequestSchema = z
  .strictObject({
    ttlSeconds: z.number().int().min(MIN_LOCK_SECONDS).max(MAX_LOCK_SECONDS).optional().meta({ description: `How long the lock lasts from now; default 120, ${MIN_LOCK_SECONDS} to ${MAX_LOCK_SECONDS}` }),
  })
  .meta({ id: 'DocumentLockRequest', example: { ttlSeconds: 300 } });

export const lockSchema = z
  .object({ locked: z.literal(true), owner: z.string(), expiresAt: z.string(), token: z.string() })
  .meta({ id: 'DocumentLock', example: { locked: true, owner: 'key_0123456789abcdef', expiresAt: '2026-11-26T08:07:00.000Z', token: 'lck_9f8e7d6c5b4a39281706f5e4d3c2b1a0' } });

export const lockHeldSchema = z
  .object({ status: z.literal('error'), error: z.string(), message: z.string(), request_id: z.string(), locked: z.literal(true), owner: z.string(), expiresAt: z.string() })
  .meta({ id: 'DocumentLockHeld' });

export const annotationCreateSchema = z
  .strictObject({
    text: z.string().trim().min(1).max(MAX_ANNOTATION_CHARS),
    line: z.number().int().min(1).optional().meta({ description: 'First line it is about (1-based)' }),
    endLine: z.number().int().min(1).optional().meta({ description: 'Last line; default line' }),
    scene: z.number().int().min(0).optional().meta({ description: 'Scene index (0-based); without line, the annotation is about the scene as a whole' }),
    parentId: z.string().max(100).optional().meta({ description: 'The annotation this replies to; a reply shares its anchor' }),
    version: z.number().int().min(1).optional().meta({ description: 'The version line and scene refer to; default the current one' }),
  })
  .refine((b) => b.parentId !== undefined || b.line !== undefined || b.scene !== undefined, { message: 'give line, scene or parentId' })
  .refine((b) => b.endLine === undefined || b.line !== undefined, { message: 'endLine needs line', path: ['endLine'] })
  .meta({ id: 'AnnotationCreate', example: { text: 'Shorter title?', line: 5, scene: 0 } });

export const annotationSchema = z
  .object({
    id: z.string(),
    text: z.string(),
    anchor: z.enum(['line', 'scene']),
    line: z.number().int(),
    endLine: z.number().int(),
    scene: z.number().int().nullable().meta({ description: 'null for the film lines before the first scene' }),
    version: z.number().int().meta({ description: 'The version line and scene refer to' }),
    author: z.string(),
    createdAt: z.string(),
    parentId: z.string().optional(),
    resolved: z.boolean(),
    resolvedBy: z.string().optional(),
    resolvedAt: z.string().optional(),
    outdated: z.boolean().meta({ description: 'What it pointed at is gone from a later version' }),
  })
  .meta({
    id: 'Annotation',
    example: {
      id: 'ann_0a1b2c3d4e5f6a7b8c9d0e1f',
      text: 'Shorter title?',
      anchor: 'line',
      line: 5,
      endLine: 5,
      scene: 0,
      version: 3,
      author: 'key_0123456789abcdef',
      createdAt: '2026-11-26T08:06:00.000Z',
      resolved: false,
      outdated: false,
    },
  });

export const annotationListSchema = z.object({ annotations: z.array(annotationSchema).meta({ description: 'Oldest first' }) }).meta({ id: 'AnnotationList' });

export const annotationPatchSchema = z.strictObject({ resolved: z.boolean() }).meta({ id: 'AnnotationPatch', example: { resolved: true } });

export const documentCompileFailedSchema = z
  .object({ status: z.literal('error'), error: z.literal('compile_failed'), message: z.string(), request_id: z.string(), diagnostics: z.array(diagnosticSchema) })
  .meta({ id: 'DocumentCompileFailed' });

export const documentRenderQueuedSchema = z
  .object({
    jobId: z.string(),
    status: z.literal('queued'),
    message: z.string(),
    statusUrl: z.string(),
    documentId: z.string(),
    version: z.number().int().meta({ description: 'The document version being rendered' }),
  })
  .meta({ id: 'DocumentRenderQueued' });
