import { z } from 'zod';

/**
 * Wire schemas of the tenant-scoped analytics reads (`GET /v1/analytics/{org_id}/...`, docs/analytics.md):
 * the query strings they accept and the rows they answer, one source for validation and OpenAPI.
 */

export const MAX_PAGE = 1000;
export const MAX_RANGE_DAYS = 31;
const DAY_MS = 86_400_000;

const instant = z.iso.datetime({ offset: true, error: 'must be an RFC 3339 timestamp, e.g. 2030-03-01T00:00:00Z' });

export const pageQuery = z.strictObject({
  limit: z.coerce.number({ error: 'must be a number' }).int().min(1).max(MAX_PAGE).default(100).meta({ description: `Rows per page, 1 to ${MAX_PAGE}` }),
  offset: z.coerce.number({ error: 'must be a number' }).int().min(0).default(0).meta({ description: 'Rows to skip' }),
});

/** The query string as documented; `rangeQuery` parses it into epoch milliseconds. */
export const rangeQueryShape = pageQuery.extend({
  from: instant.optional().meta({ description: 'Start, inclusive (default: 24 hours before `to`)' }),
  to: instant.optional().meta({ description: `End, exclusive (default: now); at most ${MAX_RANGE_DAYS} days after from` }),
});

export const rangeQuery = rangeQueryShape.transform((q, ctx) => {
    const to = q.to ? Date.parse(q.to) : Date.now();
    const from = q.from ? Date.parse(q.from) : to - DAY_MS;
    if (from >= to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must be before to' });
    if (to - from > MAX_RANGE_DAYS * DAY_MS) ctx.addIssue({ code: 'custom', path: ['from'], message: `must be at most ${MAX_RANGE_DAYS} days before to` });
    return { limit: q.limit, offset: q.offset, from, to };
  });

const time = z.string().meta({ description: 'RFC 3339, UTC' });

export const hourlyRow = z
  .object({ hour: time, rule_id: z.string(), outcome: z.enum(['triggered', 'not_triggered']), decisions: z.number().int() })
  .meta({ id: 'AnalyticsDecisionsHourly' });

export const topRuleRow = z
  .object({
    rule_id: z.string(),
    name: z.string().meta({ description: "The rule's latest name" }),
    triggered: z.number().int(),
    evaluated: z.number().int(),
    trigger_rate: z.number(),
  })
  .meta({ id: 'AnalyticsTopRule' });

export const decisionRuleRow = z
  .object({
    transaction_id: z.string(),
    entity_id: z.string(),
    decided_at: time,
    decision_score: z.number(),
    triggered_rules_count: z.number().int(),
    rule_id: z.string(),
    rule_version: z.number().int(),
    rule_name: z.string().meta({ description: 'Name of the version that decided' }),
    threshold: z.number(),
    triggered: z.number().int().meta({ description: '1 or 0' }),
    rule_score: z.number(),
    evaluation_names: z.array(z.string()),
    evaluation_results: z.array(z.number().int()).meta({ description: 'Results of the evaluations, in the order of evaluation_names' }),
  })
  .meta({ id: 'AnalyticsDecisionRule' });

export const screeningHitRow = z
  .object({ list: z.string().meta({ description: 'Source list of the match, or (no match)' }), decision: z.string(), screenings: z.number().int() })
  .meta({ id: 'AnalyticsScreeningHits' });

export const counterConfigRow = z
  .object({ version: z.number().int(), created_at: time, counters: z.number().int(), table_name: z.string() })
  .meta({ id: 'AnalyticsCounterConfig' });

export const entityCountersSchema = z
  .object({
    status: z.literal('ok'),
    data: z
      .object({
        entity_id: z.string(),
        counters: z.record(z.string(), z.union([z.number(), z.string(), z.null()])).meta({ description: 'count and sum as numbers; last_seen as RFC 3339 or null' }),
        updated_at: time.meta({ description: 'When these values were flushed' }),
      })
      .nullable()
      .meta({ description: 'null when the entity has no flushed counters (or the organization no counter configuration)' }),
  })
  .meta({ id: 'AnalyticsEntityCounters' });

export const pageOf = <T extends z.ZodType>(row: T) =>
  z.object({
    status: z.literal('ok'),
    data: z.object({
      rows: z.array(row),
      limit: z.number().int(),
      offset: z.number().int(),
      next_offset: z.number().int().nullable().meta({ description: 'Offset of the next page; null on the last page' }),
    }),
  });
