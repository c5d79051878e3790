import { z } from 'zod';
import { LIST_TYPES, RELATIONSHIP_TYPES } from '../../domain/screening/entity.js';
import { DECISIONS } from '../../domain/screening/screen.js';

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

/** How one match was scored and decided (api/screening/present.ts builds it from the domain's explanation). */
export const screeningExplanation = z
  .object({
    matched_name: z.string().meta({ description: 'The listed name the query matched, as the list writes it' }),
    name_kind: z.enum(['primary', 'strong', 'weak']).meta({ description: "The record's primary name, an ordinary (strong) alias, or a weak alias (too common to identify the party alone)" }),
    name_score: z.number().meta({ description: 'Score of the name alone: query_coverage × (1 − w + w × listed_coverage)' }),
    query_coverage: z.number().meta({ description: "Rarity-weighted share of the query's words found in the listed name, by similarity" }),
    listed_coverage: z.number().meta({ description: "Rarity-weighted share of the listed name's words found in the query" }),
    listed_coverage_weight: z.number().meta({ description: 'w above: how much a word of the listed name the query lacks costs' }),
    tokens: z
      .array(
        z.object({
          query: z.string().nullable().meta({ description: 'Query word (folded); null for a listed word the query lacks' }),
          listed: z.string().nullable().meta({ description: 'Listed word (folded); null for a query word the listed name lacks' }),
          similarity: z.number(),
          weight: z.number().meta({ description: 'Rarity weight of the word' }),
        }),
      )
      .meta({ description: 'Token alignment: each query word with its listed partner and similarity, then listed words left over' }),
    attributes: z
      .array(
        z.object({
          attribute: z.enum(['dob', 'nationality', 'country']),
          given: z.string(),
          listed: z.array(z.string()),
          effect: z.number().meta({ description: 'Added to the name score (country only counts as an agreeing attribute)' }),
          verdict: z.enum(['agrees', 'contradicts', 'neutral']),
        }),
      )
      .meta({ description: 'Effect of each attribute given with the query' }),
    rule: z.enum(['weak_alias', 'inner_names_missing']).nullable().meta({ description: 'Judgement rule applied beyond the score, if any' }),
    rule_effect: z.string().nullable(),
    thresholds: z.object({ review: z.number(), block: z.number() }),
    score: z.number(),
    decision: z.enum(DECISIONS),
  })
  .meta({ id: 'ScreeningExplanation' });

export const screeningMatch = z
  .object({
    entity_id: z.string(),
    entity_name: z.string(),
    source: z.string(),
    score: z.number(),
    list_type: z.enum(LIST_TYPES),
    matched_name: z.string(),
    listed_on: z.array(z.object({ entity_id: z.string(), source: z.string(), list_type: z.enum(LIST_TYPES) })),
    explanation: screeningExplanation,
  })
  .meta({ id: 'ScreeningMatch' });

const EXAMPLE_MATCH = {
  entity_id: 'ofac-sdn-26945',
  entity_name: 'KHAMENEI, Ali Husseini',
  source: 'OFAC-SDN',
  score: 0.847,
  list_type: 'sanctions' as const,
  matched_name: 'KHAMENEI, Ali Husseini',
  listed_on: [{ entity_id: 'ofac-sdn-26945', source: 'OFAC-SDN', list_type: 'sanctions' as const }],
  explanation: {
    matched_name: 'KHAMENEI, Ali Husseini',
    name_kind: 'primary' as const,
    name_score: 0.797,
    query_coverage: 1,
    listed_coverage: 0.594,
    listed_coverage_weight: 0.5,
    tokens: [
      { query: 'ali', listed: 'ali', similarity: 1, weight: 3.995 },
      { query: 'khamenei', listed: 'khamenei', similarity: 1, weight: 9.506 },
      { query: null, listed: 'husseini', similarity: 0, weight: 9.219 },
    ],
    attributes: [{ attribute: 'dob' as const, given: '1939-04-19', listed: ['1939-04-19'], effect: 0.05, verdict: 'agrees' as const }],
    rule: 'inner_names_missing' as const,
    rule_effect: 'the query is the listed name without its middle names or patronymics: at least REVIEW, BLOCK when a second attribute agrees on a sanctions list; dob agrees, so BLOCK',
    thresholds: { review: 0.8, block: 0.95 },
    score: 0.847,
    decision: 'BLOCK' as const,
  },
};

/** POST /v1/aml/screen answer. */
export const screenAnswer = z
  .object({
    decision: z.enum(DECISIONS),
    audit_id: z.string(),
    match: screeningMatch.nullable().meta({ description: 'The best match that counts (REVIEW or BLOCK), with its explanation' }),
    weak_alias_match: screeningMatch
      .nullable()
      .meta({ description: 'When no match counts: the best match on a weak alias, left CLEAR because no second attribute (dob, nationality, country) agrees' }),
    relationship_match: z.record(z.string(), z.unknown()).nullable(),
    processing_time_ms: z.number(),
    list_version: z.string(),
  })
  .meta({
    id: 'ScreenAnswer',
    example: { decision: 'BLOCK', audit_id: '0b6f3c1e-8f1a-4d3c-9c57-2f0d8d1b6a41', match: EXAMPLE_MATCH, weak_alias_match: null, relationship_match: null, processing_time_ms: 3, list_version: '2025-04-10-87b46bbd' },
  });
