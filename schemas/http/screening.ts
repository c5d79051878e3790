import { z } from 'zod';
import { RELATIONSHIP_TYPES } from '../../domain/screening/entity.js';

/** Request bodies of the screening API (Document 3 part A); the single source of their validation. */

const name = z.string().trim().min(1, 'must not be empty').max(300, 'must be at most 300 characters');

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'is not a calendar date');

export const screenBody = z.strictObject({
  name,
  dob: isoDate.optional(),
  nationality: z.string().regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166 alpha-2 country code').transform((s) => s.toUpperCase()).optional(),
  customer_id: z.string().max(200).optional(),
  amount: z.number().finite().nonnegative().optional(),
  currency: z.string().regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 currency code').transform((s) => s.toUpperCase()).optional(),
});
export type ScreenBody = z.infer<typeof screenBody>;

export const MAX_BATCH = 100;
export const screenBatchBody = z.strictObject({
  names: z.array(name).min(1, 'must hold at least one name').max(MAX_BATCH, `must hold at most ${MAX_BATCH} names`),
});

export const agentLookupBody = z.strictObject({
  query: name,
  include_related: z.boolean().default(true),
  include_reverse_relationships: z.boolean().default(false),
  format: z.enum(['markdown', 'json']).default('markdown'),
  max_results: z.number().int().min(1).max(20).default(10),
});
export type AgentLookupBody = z.infer<typeof agentLookupBody>;

export const MAX_LOOKUP_BATCH = 20;
export const agentLookupBatchBody = z.strictObject({
  queries: z.array(name).min(1, 'must hold at least one query').max(MAX_LOOKUP_BATCH, `must hold at most ${MAX_LOOKUP_BATCH} queries`),
});

export const relationshipSearchBody = z.strictObject({
  name,
  min_score: z.number().min(0).max(1).default(0.85),
  /** Matches returned; match_count still counts all of them. */
  limit: z.number().int().min(1).max(500).default(100),
});

/**
 * PUT /v1/aml/config merges: the fields given replace the stored ones, the rest keep their value.
 * What GET answers is taken back unchanged (`updated_at` is read-only and ignored).
 */
export const relationshipConfigBody = z
  .strictObject({
    enabled: z.boolean().optional(),
    min_score: z.number().min(0).max(1).optional(),
    decision_escalation: z.enum(['REVIEW', 'BLOCK']).optional(),
    relationship_types: z.array(z.enum(RELATIONSHIP_TYPES)).optional(),
    updated_at: z.string().nullable().optional().meta({ description: 'Read-only: ignored' }),
  })
  .meta({ example: { enabled: true, min_score: 0.9, decision_escalation: 'BLOCK', relationship_types: ['family_member', 'owner'] } });

export const relationshipConfigView = z
  .object({
    enabled: z.boolean(),
    min_score: z.number(),
    decision_escalation: z.enum(['REVIEW', 'BLOCK']),
    relationship_types: z.array(z.enum(RELATIONSHIP_TYPES)),
    updated_at: z.string().nullable().meta({ description: 'When a PUT last changed them; null for the defaults' }),
  })
  .meta({ example: { enabled: true, min_score: 0.85, decision_escalation: 'REVIEW', relationship_types: ['family_member', 'owner'], updated_at: '2026-11-26T08:00:00.000Z' } });

/** Error body of every screening 4xx and 5xx, as the OpenAPI document describes it (api/screening/openapi.ts). */
export const screeningErrorBody = z
  .object({
    status: z.literal('error'),
    error: z.string().meta({ description: 'Machine-readable reason, e.g. validation_error, rate_limited, lists_unavailable' }),
    message: z.string().meta({ description: 'What is wrong and where' }),
    details: z.array(z.unknown()).optional().meta({ description: 'Validation issues, on validation_error' }),
    request_id: z.string().optional(),
  })
  .meta({ id: 'ScreeningError' });
