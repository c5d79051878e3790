import { z } from 'zod';
import { CANDIDATE_DEFAULTS, SCORE_WEIGHTS } from '../../domain/video/clips/candidates.js';
import { MAX_DOCUMENT_NAME_CHARS } from '../../domain/video/document-bounds.js';
import { MAX_SCENE_SECONDS } from '../../domain/video/directives.js';
import { diagnosticSchema, renderGraphSchema } from './video.js';

/** Wire schemas of clips (docs/video-clips.md): bodies and the OpenAPI document. */

/** Most candidates one call answers. */
export const MAX_CANDIDATES = 20;
const MAX_GOAL_CHARS = 500;

const EXAMPLE_SOURCE = 'src_3b9d0c1e2f4a5b6c7d8e9f0a1b2c3d4e';
const sourceId = z.string().min(1).max(100).meta({ description: 'The source id (src_…); the source must be preprocessed' });
const time = z.number().min(0).max(86_400);
const goal = z.string().trim().min(1).max(MAX_GOAL_CHARS).meta({ description: 'What the clip should be about, in words the speakers would use' });

/** A window of a source; at most a scene long. */
export const windowShape = {
  sourceId,
  start: time.meta({ description: 'Seconds from the start of the source' }),
  end: time.meta({ description: 'Seconds from the start of the source, after start' }),
};
const windowChecks = <T extends { start: number; end: number }>(s: z.ZodType<T>) =>
  s
    .refine((w) => w.end > w.start, { message: 'end must be after start', path: ['end'] })
    .refine((w) => w.end - w.start <= MAX_SCENE_SECONDS, { message: `a clip lasts at most ${MAX_SCENE_SECONDS} s`, path: ['end'] });

export const candidatesRequestSchema = z
  .strictObject({
    sourceId,
    goal,
    maxCandidates: z.number().int().min(1).max(MAX_CANDIDATES).default(CANDIDATE_DEFAULTS.maxCandidates).meta({ description: `At most ${MAX_CANDIDATES}; default ${CANDIDATE_DEFAULTS.maxCandidates}` }),
  })
  .meta({ id: 'ClipCandidatesRequest', example: { sourceId: EXAMPLE_SOURCE, goal: 'pricing for small teams', maxCandidates: 3 } });

const part = z.number().min(0).max(1);
export const candidateSchema = z
  .object({
    start: time,
    end: time,
    score: z.number().min(0).max(1).meta({ description: 'The weighted sum of score_parts' }),
    text: z.string().meta({ description: "The window's sentences" }),
    matched_terms: z.array(z.string()).meta({ description: "The goal's terms (lower-cased, plurals folded) said in the window" }),
    score_parts: z
      .object(Object.fromEntries(Object.keys(SCORE_WEIGHTS).map((k) => [k, part])) as Record<keyof typeof SCORE_WEIGHTS, typeof part>)
      .meta({ description: `Each part from 0 to 1; weights ${Object.entries(SCORE_WEIGHTS).map(([k, w]) => `${k} ${w}`).join(', ')}` }),
  })
  .meta({ id: 'ClipCandidate' });

export const candidatesResponseSchema = z
  .object({
    candidates: z.array(candidateSchema).meta({ description: 'Best first; none overlaps another by more than 30% of the shorter' }),
    terms: z.array(z.string()).meta({ description: "The goal's search terms" }),
    reason: z.string().optional().meta({ description: 'Why there are no candidates' }),
  })
  .meta({ id: 'ClipCandidates' });

export const windowRequestSchema = windowChecks(z.strictObject(windowShape)).meta({ id: 'ClipWindow', example: { sourceId: EXAMPLE_SOURCE, start: 61.3, end: 94.8 } });

const edge = z.enum(['cut', 'sentence', 'as-given']);
export const refinedSchema = z
  .object({ start: time, end: time, startsOn: edge.meta({ description: 'What the start landed on: a shot cut, a sentence (with a small margin), or where it was given (no speech there)' }), endsOn: edge })
  .meta({ id: 'ClipRefined' });

export const clipNameSchema = z.string().trim().min(1).max(MAX_DOCUMENT_NAME_CHARS);
const name = clipNameSchema;

export const draftRequestSchema = windowChecks(z.strictObject({ ...windowShape, name: name.optional().meta({ description: 'The film title; default "Clip of <source name>"' }) })).meta({
  id: 'ClipDraftRequest',
  example: { sourceId: EXAMPLE_SOURCE, start: 61.3, end: 94.8, name: 'Pricing, in 30 seconds' },
});

export const draftSchema = z
  .object({ source: z.string().meta({ description: 'The script (docs/video-script.md)' }), renderGraph: renderGraphSchema, diagnostics: z.array(diagnosticSchema) })
  .meta({ id: 'ClipDraft' });

export const clipDocumentCreateSchema = windowChecks(z.strictObject({ ...windowShape, name })).meta({
  id: 'ClipDocumentCreate',
  example: { sourceId: EXAMPLE_SOURCE, start: 61.3, end: 94.8, name: 'Pricing, in 30 seconds' },
});

export const redraftSchema = z
  .strictObject({ start: time.optional(), end: time.optional(), goal: goal.optional().meta({ description: 'Take the best candidate for this goal as the new window' }) })
  .refine((r) => r.start !== undefined || r.end !== undefined || r.goal !== undefined, { message: 'give start, end or goal' })
  .refine((r) => r.goal === undefined || (r.start === undefined && r.end === undefined), { message: 'give either a window (start, end) or a goal, not both', path: ['goal'] })
  .meta({ id: 'ClipRedraft', example: { start: 58, end: 97.5 } });

export const exportQuerySchema = z.strictObject({
  format: z.enum(['script', 'json']).default('json').meta({ description: 'script: the script as text/plain; json: the document (default)' }),
});
