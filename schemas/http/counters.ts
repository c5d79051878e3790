import { z } from 'zod';
import { MAX_AMOUNT } from '../../domain/bounds.js';
import { WINDOW_UNITS, type WindowUnit } from '../../domain/windows/units.js';
import { boundedNumber } from './bounds.js';

/**
 * Wire schemas of the event counter service (Document 1 part B, CONTRACTS.md sections 1b and 4).
 * They are the single source of the request validation, the domain types and the OpenAPI document.
 */

export const MAX_WINDOW_DAYS = 90;
export const MAX_BATCH_EVENTS = 500;
/** Columns every counter table has; a counter may not take their names. */
export const RESERVED_COLUMNS = ['org_id', 'entity_id', 'updated_at'] as const;

const name = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9_]+$/, 'must be lowercase letters, digits and underscores');

export const windowSchema = z
  .strictObject({
    amount: z.number().int().positive(),
    unit: z.enum(Object.keys(WINDOW_UNITS) as [WindowUnit, ...WindowUnit[]]),
  })
  .refine((w) => w.amount * WINDOW_UNITS[w.unit] <= MAX_WINDOW_DAYS * WINDOW_UNITS.days, { message: `must be at most ${MAX_WINDOW_DAYS} days` })
  .meta({ id: 'CounterWindow', description: 'Rolling window; required for count and sum, ignored for last_seen.' });

export const counterDefSchema = z
  .strictObject({
    name: name.meta({ description: 'Column name rules reference as entity_counters.<name>' }),
    event_type: z.string().min(1).max(128),
    aggregate: z.enum(['count', 'sum', 'last_seen']),
    window: windowSchema.optional(),
    attribute_filters: z.record(z.string(), z.string()).default({}).meta({ description: 'Only events whose attributes equal these values count' }),
    alert_thresholds: z.array(boundedNumber(MAX_AMOUNT)).max(32).default([]).meta({ description: 'Crossing any value flushes the entity at once' }),
    active: z.boolean().default(true).meta({ description: 'false stops counting and keeps the column' }),
  })
  .meta({ id: 'CounterDefinition' });

export const attributeSchema = z.strictObject({ name, type: z.literal('text').default('text') }).meta({ id: 'EventAttribute' });

const tableName = z
  .string()
  .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must start with a lowercase letter or underscore and hold only lowercase letters, digits and underscores (at most 63)');

export const MAX_EVENT_ID_WINDOW_HOURS = 72;

export const eventIdWindowSchema = z
  .strictObject({
    amount: z.number().int().positive(),
    unit: z.enum(Object.keys(WINDOW_UNITS) as [WindowUnit, ...WindowUnit[]]),
  })
  .refine((w) => w.amount * WINDOW_UNITS[w.unit] <= MAX_EVENT_ID_WINDOW_HOURS * WINDOW_UNITS.hours, { message: `must be at most ${MAX_EVENT_ID_WINDOW_HOURS} hours` })
  .meta({
    id: 'EventIdWindow',
    description:
      'How long event ids are remembered: an event_id re-sent within this window (over HTTP or the events topic, with any entity_id) is a duplicate and counts once; after it, the id is a new event. Ids are kept for at least the window and at most six hours longer (a quarter of the window longer when it is under six hours).',
  });

const configFields = {
  enabled: z.boolean().default(true).meta({ description: 'Master switch for counting' }),
  event_id_window: eventIdWindowSchema.default({ amount: 24, unit: 'hours' }),
  table_name: tableName.default('entity_counters'),
  flush_interval_seconds: z.number().int().min(1).max(86_400).default(60),
  attributes: z.array(attributeSchema).max(100).default([]),
  counters: z.array(counterDefSchema).max(200).default([]),
};

/** Cross-field rules a single field's schema cannot state; issues carry the path of the offending field. */
function checkConfig(c: { attributes: { name: string }[]; counters: z.infer<typeof counterDefSchema>[] }, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  const declared = new Set<string>();
  c.attributes.forEach((a, i) => {
    if (declared.has(a.name)) issue(['attributes', i, 'name'], `attribute ${a.name} is declared twice`);
    declared.add(a.name);
  });
  const seen = new Set<string>();
  c.counters.forEach((k, i) => {
    if (seen.has(k.name)) issue(['counters', i, 'name'], `counter name ${k.name} is used twice; names are unique within the organization`);
    seen.add(k.name);
    if ((RESERVED_COLUMNS as readonly string[]).includes(k.name)) issue(['counters', i, 'name'], `${k.name} is a reserved column of the counter table`);
    if (k.aggregate !== 'last_seen' && !k.window) issue(['counters', i, 'window'], `is required for a ${k.aggregate} counter`);
    if (k.aggregate === 'last_seen' && k.alert_thresholds.length > 0) issue(['counters', i, 'alert_thresholds'], 'apply to count and sum counters only');
    for (const attr of Object.keys(k.attribute_filters)) {
      if (!declared.has(attr)) issue(['counters', i, 'attribute_filters', attr], `filters on attribute ${attr}, which is not declared in attributes`);
    }
  });
}

/** Body of PUT /v1/counters/{org_id}: the whole configuration plus the version it replaces. */
export const counterConfigBodySchema = z
  .strictObject({
    ...configFields,
    version: z.number().int().min(0).optional().meta({ description: 'The version read; omit only when no configuration exists' }),
  })
  .superRefine(checkConfig)
  .meta({
    id: 'CounterConfigurationRequest',
    description: "The whole configuration: GET's `data` (or GET's whole answer) sent back unchanged is accepted",
    example: {
      enabled: true,
      event_id_window: { amount: 24, unit: 'hours' },
      table_name: 'entity_counters',
      flush_interval_seconds: 60,
      attributes: [{ name: 'channel', type: 'text' }],
      counters: [{ name: 'logins_1h', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' }, attribute_filters: { channel: 'web' }, alert_thresholds: [], active: true }],
      version: 1,
    },
  });

/** A stored configuration (what GET answers and the pipeline runs). */
export const counterConfigSchema = z.strictObject({ ...configFields, version: z.number().int().positive() }).superRefine(checkConfig).meta({ id: 'CounterConfiguration' });

export type CounterConfigBody = z.infer<typeof counterConfigBodySchema>;
export type CounterConfig = z.infer<typeof counterConfigSchema>;
export type CounterDef = z.infer<typeof counterDefSchema>;
export type CounterWindow = z.infer<typeof windowSchema>;

const eventFields = {
  event_id: z.string().min(1).max(256).meta({ description: 'Idempotency key: a re-sent id counts once and is reported as a duplicate' }),
  entity_id: z.string().min(1).max(256),
  event_type: z.string().min(1).max(128),
  occurred_at: z.iso.datetime({ offset: true }).meta({ description: 'RFC 3339; more than 5 minutes in the future is rejected' }),
};

/** One event as posted over HTTP. */
export const eventSchema = z
  .strictObject({
    ...eventFields,
    value: boundedNumber(MAX_AMOUNT).optional().meta({ description: 'Amount a sum counter adds; ignored by count and last_seen' }),
    attributes: z.record(z.string(), z.string()).optional().meta({ description: 'Declared attributes only' }),
  })
  .meta({ id: 'CounterEvent' });
export type CounterEvent = z.infer<typeof eventSchema>;

/**
 * One message of the `events` topic (CONTRACTS.md 1b): the event plus org_id. Avro producers send
 * null for absent optional fields, so null is accepted and normalized to absent.
 */
export const topicEventSchema = z
  .strictObject({
    ...eventFields,
    org_id: z.string().min(1),
    value: boundedNumber(MAX_AMOUNT).nullish(),
    attributes: z.record(z.string(), z.string()).nullish(),
  })
  // Fields named one by one: object rest and spread here took about 1 µs of the counter consumer's
  // 36 µs per event (bench/results/counters-consumer-cpu.md).
  .transform(({ event_id, entity_id, event_type, occurred_at, org_id, value, attributes }) => {
    const event: CounterEvent & { org_id: string } = { event_id, entity_id, event_type, occurred_at, org_id };
    if (value != null) event.value = value;
    if (attributes != null) event.attributes = attributes;
    return event;
  });
export type TopicEvent = z.output<typeof topicEventSchema>;

/**
 * topicEventSchema compiled by zod, for the counter stage, which checks every message of `events`:
 * a generated parser answers valid messages at about half the runtime's cost, and whatever it does
 * not accept is parsed again by the runtime parser, so rejections and their reasons are the
 * runtime's own.
 */
export const compiledTopicEventSchema = z.compile(topicEventSchema);

/**
 * Body of POST /v1/events/{org_id}/batch. Items are checked one by one (a bad item is rejected with
 * its index, the rest still accepted), so the envelope only requires an array of objects' slots.
 */
export const eventBatchSchema = z
  .strictObject({
    events: z.array(z.unknown()).min(1, 'must hold at least one event').max(MAX_BATCH_EVENTS, `must hold at most ${MAX_BATCH_EVENTS} events`),
  });

/** The batch body as documented: the envelope of eventBatchSchema with its items typed. */
export const eventBatchDocSchema = z.object({ events: z.array(eventSchema).min(1).max(MAX_BATCH_EVENTS) }).meta({ id: 'CounterEventBatch' });

export const ingestionResultSchema = z
  .object({
    accepted: z.number().int().min(0),
    duplicates: z.number().int().min(0),
    rejected: z.array(z.object({ index: z.number().int().min(0), reason: z.string() })),
  })
  .meta({ id: 'IngestionResult' });
export type IngestionResult = z.infer<typeof ingestionResultSchema>;

export const realtimeSchema = z
  .object({
    entity_id: z.string(),
    counters: z.record(z.string(), z.union([z.number(), z.string(), z.null()])).meta({ description: 'count and sum as numbers; last_seen as RFC 3339 or null' }),
    as_of: z.string().meta({ description: 'RFC 3339 instant the values hold for' }),
  })
  .meta({ id: 'EntityRealtime' });

export const okEnvelope = <T extends z.ZodType>(data: T) => z.object({ status: z.literal('ok'), data });

export const errorBodySchema = z
  .object({
    status: z.literal('error'),
    error: z.string(),
    message: z.string(),
    current_version: z.number().int().nullable().optional().meta({ description: 'Present on version_conflict' }),
    rejected: ingestionResultSchema.shape.rejected.optional(),
  })
  .meta({ id: 'ErrorBody' });
