import { z } from 'zod';
import { ASPECTS } from '../../domain/video/ast.js';
import { BUILT_IN_MOODS, FONT_FAMILIES, TEXT_ENTRANCES, TRANSITION_KINDS } from '../../domain/video/moods.js';
import { THEME_NAMES } from '../../domain/video/themes.js';
import { STILL_FORMATS } from '../../domain/video/ffmpeg-args.js';
import { VARIABLE_TYPES, type Template } from '../../domain/video/template.js';

/**
 * Wire schemas of the video production service (Document 2, CONTRACTS.md section 8): the single
 * source of request validation and of the OpenAPI document.
 */

/** Largest script the compiler accepts, in characters (a 1,000-scene script is about 60,000). */
export const MAX_SOURCE_CHARS = 500_000;

export const compileRequestSchema = z
  .strictObject({
    source: z.string().min(1).max(MAX_SOURCE_CHARS).meta({ description: 'Script text; the language is documented in docs/video-script.md' }),
    theme: z.enum(THEME_NAMES).optional().meta({ description: 'Theme pack laid over the mood: palette and type families' }),
    preview: z.boolean().optional().meta({ description: 'Compile for a quick look: 360p and at most 15 frames a second' }),
    variables: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'variable names are letters, digits and _'), z.union([z.string().max(10_000), z.number(), z.boolean()]))
      .optional()
      .meta({ description: 'Values for the {{name}} placeholders of the script' }),
  })
  .meta({ id: 'CompileRequest' });
export type CompileRequest = z.infer<typeof compileRequestSchema>;

export const diagnosticSchema = z
  .object({
    level: z.enum(['error', 'warning']),
    code: z.string().meta({ description: 'Stable kebab-case name of the finding, e.g. unknown-directive' }),
    message: z.string(),
    line: z.number().int().min(1),
    column: z.number().int().min(1).meta({ description: '1-based, in UTF-16 code units' }),
  })
  .meta({ id: 'Diagnostic' });

const color = z.string().regex(/^#[0-9A-F]{6}$/);
const seconds = z.number().min(0);
const paletteSchema = z
  .object({ background: color, surface: color, primary: color, accent: color, text: color, muted: color })
  .meta({ id: 'Palette' });
const audioSchema = z
  .object({ assetId: z.string(), start: seconds, duration: seconds, volume: z.number(), fadeIn: seconds, fadeOut: seconds })
  .meta({ id: 'AudioNode' });
const fontSchema = z.object({ family: z.enum(FONT_FAMILIES), weight: z.enum(['regular', 'bold']), size: z.number().int().meta({ description: 'Pixels' }) });
const layerSchema = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.enum(['title', 'text']),
      line: z.number().int(),
      lines: z.array(z.string()).meta({ description: 'Wrapped to the frame width' }),
      font: fontSchema,
      color,
      y: z.number().int().meta({ description: 'Pixels from the top of the frame to the first line; text is centred horizontally' }),
      lineHeight: z.number().int(),
      enter: z.object({ kind: z.enum(TEXT_ENTRANCES), at: seconds, duration: seconds }),
    }),
    z.object({ kind: z.literal('image'), line: z.number().int(), assetId: z.string(), fit: z.enum(['cover', 'contain']) }),
    z.object({ kind: z.literal('video'), line: z.number().int(), assetId: z.string(), from: seconds, muted: z.boolean() }),
    z.object({
      kind: z.literal('clip'),
      line: z.number().int(),
      sourceId: z.string(),
      from: seconds.meta({ description: 'Seconds into the source' }),
      duration: seconds.meta({ description: 'Seconds of the source played; shorter than the scene, its last frame holds' }),
      muted: z.boolean(),
    }),
    z.object({
      kind: z.literal('caption'),
      line: z.number().int(),
      lines: z.array(z.string()),
      font: fontSchema,
      color,
      box: color.meta({ description: 'The colour of the box behind the text (drawn at 65% opacity)' }),
      y: z.number().int(),
      lineHeight: z.number().int(),
      start: seconds.meta({ description: 'Seconds into the scene' }),
      end: seconds,
    }),
  ])
  .meta({ id: 'Layer' });
const sceneSchema = z
  .object({
    index: z.number().int(),
    name: z.string(),
    line: z.number().int(),
    start: seconds.meta({ description: 'Seconds from the start of the film' }),
    duration: seconds,
    background: z.discriminatedUnion('kind', [z.object({ kind: z.literal('color'), color }), z.object({ kind: z.literal('asset'), assetId: z.string(), color })]),
    layers: z.array(layerSchema),
    transition: z
      .object({ kind: z.enum(TRANSITION_KINDS.filter((k) => k !== 'cut') as [string, ...string[]]), duration: seconds })
      .nullable()
      .meta({ description: 'Into the next scene, overlapping both; null for a cut and for the last scene' }),
    audio: z.array(audioSchema),
  })
  .meta({ id: 'Scene' });

export const renderGraphSchema = z
  .object({
    version: z.literal('1'),
    film: z.object({
      title: z.string(),
      mood: z.enum(BUILT_IN_MOODS),
      moodAlias: z.string().optional().meta({ description: 'The alias the script named, when it named one' }),
      theme: z.enum(THEME_NAMES).optional(),
      aspect: z.enum(ASPECTS),
      width: z.number().int(),
      height: z.number().int(),
      fps: z.number().int(),
      durationSeconds: seconds,
      preview: z.boolean(),
    }),
    style: z.object({ palette: paletteSchema }),
    scenes: z.array(sceneSchema),
    audio: z.array(audioSchema).meta({ description: 'Beds under the whole film' }),
    assets: z.array(z.string()),
    variables: z.array(z.string()),
    sources: z.array(z.string()).optional().meta({ description: 'Every long-form source the film cuts (video source:<id>); absent when none' }),
  })
  .meta({ id: 'RenderGraph' });

export const compileResponseSchema = z
  .object({ renderGraph: renderGraphSchema, diagnostics: z.array(diagnosticSchema).meta({ description: 'Warnings: the film renders, but something may look wrong' }) })
  .meta({ id: 'CompileResponse' });

/** Latest time a preview still may ask for: the longest film a job may render by default. */
export const MAX_PREVIEW_SECONDS = 3600;

export const previewRequestSchema = z
  .strictObject({
    source: compileRequestSchema.shape.source,
    theme: compileRequestSchema.shape.theme,
    variables: compileRequestSchema.shape.variables,
    at: z.number().min(0).max(MAX_PREVIEW_SECONDS).meta({ description: 'Seconds from the start of the film; at most the film\'s duration' }),
    format: z.enum(STILL_FORMATS).default('jpeg').meta({ description: 'Image format of the answer' }),
  })
  .meta({ id: 'PreviewRequest' });

export const videoErrorSchema = z
  .object({
    status: z.literal('error'),
    error: z.string().meta({ description: 'Machine-readable reason, e.g. compile_failed, validation_error, unauthorized, not_found' }),
    message: z.string(),
    request_id: z.string(),
    diagnostics: z.array(diagnosticSchema).optional().meta({ description: 'On compile_failed: every error and warning, in source order' }),
  })
  .meta({ id: 'VideoError' });

const typeFace = z.object({ family: z.enum(FONT_FAMILIES), weight: z.enum(['regular', 'bold']), scale: z.number().meta({ description: "Font size as a fraction of the frame's shorter side" }) });
export const moodProfileSchema = z
  .object({
    name: z.enum(BUILT_IN_MOODS),
    description: z.string(),
    palette: paletteSchema,
    typography: z.object({ title: typeFace, body: typeFace, lineSpacing: z.number() }),
    motion: z.object({ textEntrance: z.enum(TEXT_ENTRANCES), entranceSeconds: seconds, staggerSeconds: seconds }),
    transition: z.object({ kind: z.enum(TRANSITION_KINDS), seconds }),
    pacing: z.object({ wordsPerSecond: z.number(), sceneSeconds: seconds, minSceneSeconds: seconds }),
  })
  .meta({ id: 'MoodProfile' });

export const moodListSchema = z
  .object({
    moods: z.array(moodProfileSchema).meta({ description: 'The built-in moods' }),
    aliases: z.record(z.string(), z.enum(BUILT_IN_MOODS)).meta({ description: 'Creative terms and the built-in each resolves to' }),
  })
  .meta({ id: 'MoodList' });

export const resolvedMoodSchema = z
  .object({
    name: z.string().meta({ description: 'The name asked for, lower-cased' }),
    alias: z.boolean(),
    resolvesTo: z.enum(BUILT_IN_MOODS),
    profile: moodProfileSchema,
  })
  .meta({ id: 'ResolvedMood' });

export const healthSchema = z.object({ status: z.literal('ok'), timestamp: z.string(), orgId: z.string().meta({ description: 'The organization of the credential' }) });

const variableValue = z.union([z.string().max(10_000), z.number(), z.boolean()]);
const variableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'variable names are letters, digits and _');

export const renderSourceRequestSchema = z
  .strictObject({
    source: compileRequestSchema.shape.source,
    engine: z.literal('native').optional().meta({ description: 'The renderer; only native (ffmpeg) exists' }),
    theme: compileRequestSchema.shape.theme,
    preview: compileRequestSchema.shape.preview,
    variables: compileRequestSchema.shape.variables,
  })
  .meta({ id: 'RenderSourceRequest' });

export const renderTemplateRequestSchema = z
  .strictObject({
    template: z.string().min(1).max(100).meta({ description: 'Name of a template of the organization' }),
    variables: z.record(z.string(), z.unknown()).optional().meta({ description: "Values checked against the template's variable schema (required, types); defaults fill the rest" }),
    theme: compileRequestSchema.shape.theme,
    preview: compileRequestSchema.shape.preview,
  })
  .meta({ id: 'RenderTemplateRequest' });

export const renderQueuedSchema = z
  .object({
    jobId: z.string(),
    status: z.literal('queued'),
    message: z.string(),
    statusUrl: z.string().meta({ description: 'Full address of GET /api/render/{id} for this job' }),
  })
  .meta({ id: 'RenderQueued' });

export const renderJobSchema = z
  .object({
    jobId: z.string(),
    status: z.enum(['queued', 'rendering', 'complete', 'failed']),
    progress: z.number().min(0).max(1).meta({ description: "From ffmpeg's own progress output; 1 once complete" }),
    output: z
      .object({
        url: z.string().meta({ description: 'Full address of GET /api/video/{id}' }),
        durationSeconds: z.number(),
        width: z.number().int(),
        height: z.number().int(),
        sizeBytes: z.number().int(),
      })
      .optional()
      .meta({ description: 'Once complete' }),
    errors: z.array(z.object({ code: z.string(), message: z.string() })).optional().meta({ description: 'Once failed: why' }),
    origin: z.enum(['source', 'file', 'template', 'document']),
    template: z.string().optional(),
    seconds: z.number().optional().meta({ description: "Seconds of video the job makes, counted against the organization's daily allowance" }),
    document: z.object({ id: z.string(), version: z.number().int().min(1) }).optional().meta({ description: 'The document and the version of it rendered (origin document)' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'RenderJob' });

/** `limit` and `cursor` of every video list; the answer's nextCursor asks for the next page (null: none). */
export const pageQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50).meta({ description: 'Items a page, 1 to 100; default 50' }),
  cursor: z.string().min(1).max(200).optional().meta({ description: 'nextCursor of the previous page' }),
});
const nextCursor = z.string().nullable().meta({ description: 'Pass as cursor for the next page; null on the last page' });

const jobExample = {
  jobId: 'job_5f0c2e7d9a1b3c4d5e6f7a8b',
  status: 'complete',
  progress: 1,
  output: { url: 'https://video.example/api/video/job_5f0c2e7d9a1b3c4d5e6f7a8b', durationSeconds: 5, width: 1920, height: 1080, sizeBytes: 412_337 },
  origin: 'source',
  seconds: 5,
  createdAt: '2026-11-26T08:00:00.000Z',
  updatedAt: '2026-11-26T08:00:04.210Z',
};
export const renderJobListSchema = z
  .object({ jobs: z.array(renderJobSchema).meta({ description: 'Newest first' }), nextCursor })
  .meta({ id: 'RenderJobList', example: { jobs: [jobExample], nextCursor: null } });

export const queueSchema = z
  .object({
    depth: z.number().int().meta({ description: 'Jobs queued and not yet taken by a worker (all organizations)' }),
    workers: z.array(z.object({ workerId: z.string(), concurrency: z.number().int(), busy: z.number().int(), lastSeen: z.string() })).meta({ description: 'Render workers that reported within the last 10 seconds' }),
    inFlight: z.array(renderJobSchema).meta({ description: "The organization's jobs rendering now" }),
  })
  .meta({ id: 'RenderQueue' });

export const templateVariableSchema = z
  .strictObject({
    name: variableName,
    type: z.enum(VARIABLE_TYPES),
    required: z.boolean().default(false),
    example: variableValue.optional(),
    default: variableValue.optional(),
  })
  .refine((v) => v.default === undefined || typeof v.default === v.type, { message: 'default must be of the variable type', path: ['default'] })
  .refine((v) => v.example === undefined || typeof v.example === v.type, { message: 'example must be of the variable type', path: ['example'] });

export const templateSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'letters, digits, . _ - (at most 100)'),
    description: z.string().max(2_000).default(''),
    version: z.string().min(1).max(50).default('1'),
    variables: z
      .array(templateVariableSchema)
      .max(100)
      .default([])
      .refine((vs) => new Set(vs.map((v) => v.name)).size === vs.length, 'variable names must be unique'),
    defaults: z.strictObject({ mood: z.string().min(1).optional(), aspect: z.enum(ASPECTS).optional() }).default({}),
    source: compileRequestSchema.shape.source,
  })
  .meta({ id: 'Template' }) satisfies z.ZodType<Template, unknown>;

export const templateListSchema = z.object({ templates: z.array(templateSchema) }).meta({ id: 'TemplateList' });

export const assetUploadSchema = z
  .object({
    assets: z.array(
      z.object({
        assetId: z.string(),
        filename: z.string(),
        size: z.number().int().meta({ description: 'Bytes' }),
        mimetype: z.string().meta({ description: 'Sniffed from the content' }),
        url: z.string().meta({ description: 'Public address: GET /assets/{id}' }),
      }),
    ),
  })
  .meta({ id: 'AssetUpload' });

export const assetSchema = assetUploadSchema.shape.assets.element
  .extend({ kind: z.enum(['image', 'video', 'audio', 'font']), createdAt: z.string().meta({ description: 'ISO 8601' }) })
  .meta({ id: 'Asset' });
export const assetListSchema = z
  .object({ assets: z.array(assetSchema).meta({ description: 'Newest first' }), nextCursor })
  .meta({
    id: 'AssetList',
    example: {
      assets: [
        { assetId: 'ast_0f1e2d3c4b5a69788796a5b4c3d2e1f0', filename: 'logo.png', size: 18_204, mimetype: 'image/png', kind: 'image', createdAt: '2026-11-26T08:00:00.000Z', url: 'https://video.example/assets/ast_0f1e2d3c4b5a69788796a5b4c3d2e1f0' },
      ],
      nextCursor: null,
    },
  });

const time = z.number().min(0).meta({ description: 'Seconds from the start of the media' });
const sourceId = 'src_3b9d0c1e2f4a5b6c7d8e9f0a1b2c3d4e';
const sourceExample = {
  id: sourceId,
  name: 'Interview, take 2',
  status: 'ready',
  mimetype: 'video/mp4',
  sizeBytes: 48_211_004,
  durationSeconds: 612.4,
  width: 1280,
  height: 720,
  streams: [
    { index: 0, type: 'video', codec: 'h264', width: 1280, height: 720, fps: 25 },
    { index: 1, type: 'audio', codec: 'aac', sampleRate: 48000, channels: 2, language: 'eng' },
  ],
  mediaUrl: `https://video.example/sources/${sourceId}/media`,
  hasSubtitles: false,
  preprocess: { status: 'complete', progress: 1 },
  transcript: [{ start: 0.42, end: 3.1, text: 'Welcome to the show.' }],
  shots: [{ index: 0, start: 0, end: 12.48, thumbnailId: 'th_0a1b2c3d4e5f6071' }],
  thumbnails: [{ id: 'th_0a1b2c3d4e5f6071', time: 6.24, url: `https://video.example/sources/${sourceId}/thumbnails/th_0a1b2c3d4e5f6071` }],
  silences: [{ start: 3.1, end: 3.9 }],
  loudness: { integratedLufs: -16.2, rangeLu: 5.1 },
  diagnostics: [],
  createdAt: '2026-11-26T08:00:00.000Z',
  updatedAt: '2026-11-26T08:03:10.000Z',
};

export const sourceSchema = z
  .object({
    id: z.string().meta({ description: 'src_…' }),
    name: z.string(),
    status: z.enum(['registered', 'preprocessing', 'ready', 'failed']),
    mimetype: z.string().meta({ description: 'Sniffed from the content' }),
    sizeBytes: z.number().int(),
    durationSeconds: z.number().nullable().meta({ description: 'From ffprobe at registration; null when the media states none' }),
    width: z.number().int().nullable().meta({ description: 'Of the first video stream; null without one' }),
    height: z.number().int().nullable(),
    streams: z
      .array(
        z.object({
          index: z.number().int(),
          type: z.enum(['video', 'audio', 'subtitle', 'other']),
          codec: z.string(),
          width: z.number().int().optional(),
          height: z.number().int().optional(),
          fps: z.number().optional(),
          sampleRate: z.number().int().optional(),
          channels: z.number().int().optional(),
          language: z.string().optional(),
        }),
      )
      .meta({ description: 'The media streams as ffprobe read them at registration' }),
    mediaUrl: z.string().meta({ description: 'Public address with HTTP ranges: GET /sources/{id}/media' }),
    hasSubtitles: z.boolean().meta({ description: 'A sidecar SRT/VTT came with the upload' }),
    preprocess: z.object({ status: z.enum(['none', 'queued', 'running', 'complete', 'failed']), progress: z.number().min(0).max(1), jobId: z.string().optional() }),
    transcript: z.array(
      z.object({ start: time, end: time, text: z.string(), words: z.array(z.object({ start: time, end: time, word: z.string() })).optional() }),
    ),
    shots: z.array(z.object({ index: z.number().int(), start: time, end: time, thumbnailId: z.string() })),
    thumbnails: z.array(z.object({ id: z.string(), time, url: z.string().meta({ description: 'Public address: GET /sources/{id}/thumbnails/{thumbId}' }) })),
    silences: z.array(z.object({ start: time, end: time })),
    loudness: z.object({ integratedLufs: z.number(), rangeLu: z.number(), truePeakDbfs: z.number().optional() }).optional(),
    diagnostics: z.array(z.object({ level: z.enum(['error', 'warning', 'info']), code: z.string(), message: z.string() })).meta({ description: 'What preprocessing could not do' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Source', example: sourceExample });

export const sourceListSchema = z.object({ sources: z.array(sourceSchema).meta({ description: 'Newest first' }), nextCursor }).meta({ id: 'SourceList', example: { sources: [sourceExample], nextCursor: null } });

export const sourceRegisterSchema = z
  .union([
    z.strictObject({ name: z.string().trim().min(1).max(200), assetId: z.string().min(1).max(100).meta({ description: 'An asset of the organization (POST /api/assets), copied' }) }),
    z.strictObject({ name: z.string().trim().min(1).max(200), url: z.string().min(1).max(2048).meta({ description: 'An http(s) address fetched once; private addresses refused' }) }),
  ])
  .meta({ id: 'SourceRegister', example: { name: 'Keynote', url: 'https://media.example/keynote.mp4' } });

export const sourceUploadFieldsSchema = z.object({ name: z.string().trim().min(1).max(200).optional() });

export const preprocessStateSchema = z
  .object({
    status: z.enum(['queued', 'running', 'complete', 'failed']),
    progress: z.number().min(0).max(1),
    diagnostics: sourceSchema.shape.diagnostics,
  })
  .meta({ id: 'PreprocessState', example: { status: 'running', progress: 0.4, diagnostics: [] } });
