import { z } from 'zod';

/**
 * The workflow event catalogue (Document 3 part B, "Events"): every event, whether a registration
 * may name it (R) or only the organization's catch-all address receives it (C), and its payload.
 * A field the document marks with `?` may be absent or null; every other field is required.
 * Payloads are open objects: producers may add fields (document events carry `tags`, CONTRACTS.md 7).
 */

export type EventKind = 'R' | 'C';

const id = z.string().min(1);
const text = z.string();
const int = z.number().int();
const count = z.number().int().min(0);
const object = z.record(z.string(), z.unknown());
const iso = z.iso.datetime({ offset: true });
/** Present, of a type the document does not name. */
const anyValue = z.custom<unknown>((v) => v !== undefined, { message: 'is required' }).meta({ description: 'any JSON value' });
const optional = <T extends z.ZodType>(t: T) => t.nullish();
const strings = z.array(z.string());

const run = { run_id: id };
const stepAt = { run_id: id, step_index: int };
const workflowRun = { run_id: id, workflow_id: id };
const documentTags = { tags: optional(strings).meta({ description: 'matched by a registration filter.tags' }) };

const agentPayload = z.looseObject({
  agent_run_id: id,
  status: z.enum(['completed', 'paused', 'cancelled', 'failed']),
  iterations: count,
  final_answer: optional(anyValue),
  confidence: optional(z.number()),
  paused_reason: optional(text),
});

/** What the risk check emits (domain/risk/events.ts RiskEventPayload). */
const riskPayload = z.looseObject({
  request_id: id,
  outcome: text,
  score: z.number(),
  reasons: z.array(text),
  action: optional(text),
  user_id: optional(text),
  session_id: optional(text),
  occurred_at: optional(text),
});

const approvalRequested = z.union([
  z.looseObject({ ...workflowRun, step_id: id, comment: text.nullable(), request_payload: object, status: z.literal('pending') }),
  z.looseObject({
    source: z.literal('standalone_agent'),
    agent_run_id: id,
    run_id: id,
    step_id: id,
    question: text,
    options: strings,
    context_summary: text,
    urgency: text,
    status: z.literal('pending'),
  }),
]);

interface EventSpec {
  kind: EventKind;
  payload: z.ZodType<Record<string, unknown>>;
  alias?: string;
  description: string;
}

const spec = (kind: EventKind, payload: z.ZodType<Record<string, unknown>>, description: string, alias?: string): EventSpec => ({ kind, payload, description, ...(alias ? { alias } : {}) });

export const CATALOGUE = {
  workflow_run_started: spec('R', z.looseObject({ ...workflowRun, input_payload: object }), 'A workflow run started', 'workflow.started'),
  workflow_run_completed: spec('R', z.looseObject({ ...workflowRun, result: object }), 'A workflow run completed', 'workflow.completed'),
  workflow_run_failed: spec('R', z.looseObject({ ...workflowRun, reason: text, context: object }), 'A workflow run failed', 'workflow.failed'),
  workflow_run_cancelled: spec('R', z.looseObject({ ...workflowRun, reason: text, actor: z.looseObject({ type: text, id: text }) }), 'A workflow run was cancelled', 'workflow.cancelled'),
  'step.started': spec('C', z.looseObject({ ...stepAt, step_type: text }), 'A step of a run started'),
  'step.completed': spec('C', z.looseObject(stepAt), 'A step of a run completed'),
  'step.failed': spec('C', z.looseObject({ ...stepAt, error: z.looseObject({ message: text }) }), 'A step of a run failed'),
  'loop.started': spec('C', z.looseObject({ ...stepAt, step_id: id, mode: text, total_items: count }), 'A loop step started'),
  'loop.failed': spec('C', z.looseObject({ ...stepAt, step_id: id, mode: text, error: text }), 'A loop step failed'),
  pbot_approval_requested: spec('R', approvalRequested, 'A paused step or a standalone agent asks for an approval'),
  pbot_approval_decided: spec(
    'R',
    z.looseObject({ ...run, step_id: id, approval_id: id, approved: z.boolean(), comment: text.nullable(), decided_at: iso }),
    'An approval was decided',
  ),
  form_pause_created: spec('C', z.looseObject({ form_pause_id: id, ...run, step_id: id, expected_keys: strings, expires_at: iso }), 'A run paused for a form'),
  form_submitted: spec('C', z.looseObject({ form_pause_id: id, submission_id: id, ...run, step_id: id, claimed_by: optional(text) }), 'A paused run received its form'),
  form_expired: spec('C', z.looseObject({ ...run, step_id: id }), 'A form pause expired'),
  external_form_created: spec('R', z.looseObject({ form_id: id, form_name: text, is_public: z.boolean(), created_at: iso }), 'An external form was created'),
  external_form_updated: spec('R', z.looseObject({ form_id: id, form_name: text, changes: strings }), 'An external form was updated'),
  external_form_deleted: spec('R', z.looseObject({ form_id: id, form_name: text, deleted_at: iso }), 'An external form was deleted'),
  external_form_submitted: spec(
    'R',
    z.looseObject({
      form_id: id,
      form_name: text,
      submission_id: id,
      submitted_at: iso,
      submitted_by: optional(text).meta({ description: 'only when sign-in was required' }),
      triggered_run_id: id.nullable(),
      triggered_execution_type: z.enum(['workflow_run', 'agent_run']).nullable(),
      has_triggered_workflow: z.boolean(),
    }),
    'An external form was submitted',
  ),
  'matcher.started': spec('C', z.looseObject({ ...stepAt, left_size: count, right_size: count }), 'A matcher step started on the worker'),
  'matcher.completed': spec(
    'C',
    z.looseObject({ ...stepAt, schema_version: text, matched_count: count, unmatched_left_count: count, unmatched_right_count: count, policy: object }),
    'A matcher step completed',
  ),
  'matcher.failed': spec('C', z.looseObject({ ...stepAt, error: anyValue }), 'A matcher step failed'),
  'nway_matcher.started': spec('C', z.looseObject({ ...stepAt, leg_counts: z.record(z.string(), count) }), 'An n-way matcher step started'),
  'nway_matcher.completed': spec(
    'C',
    z.looseObject({
      ...stepAt,
      schema_version: text,
      counts: z.looseObject({ groups: count, full: count, missing_leg: count, variance: count, orphan: count }),
      result_reference: anyValue,
    }),
    'An n-way matcher step completed',
  ),
  'nway_matcher.failed': spec('C', z.looseObject({ ...stepAt, error: anyValue }), 'An n-way matcher step failed'),
  'agent.completed': spec('C', agentPayload, 'An agent run completed'),
  'agent.paused': spec('C', agentPayload, 'An agent run paused'),
  'agent.cancelled': spec('C', agentPayload, 'An agent run was cancelled'),
  'agent.failed': spec('C', agentPayload, 'An agent run failed'),
  'document.uploaded': spec('R', z.looseObject({ document_id: id, name: text, content_type: text, size_bytes: count, ...documentTags }), 'A document was uploaded'),
  'document.version_created': spec(
    'R',
    z.looseObject({ document_id: id, version: int, content_type: text, size_bytes: count, ...documentTags }),
    'A new version of a document was stored',
  ),
  'document.deleted': spec('R', z.looseObject({ document_id: id, ...documentTags }), 'A document was deleted'),
  'document.expired': spec('R', z.looseObject({ document_id: id, name: text, expires_at: iso, ...documentTags }), 'A document expired'),
  'playbook_request.listed': spec(
    'C',
    z.looseObject({ request_id: id, package_id: id, key: text, code: text, title: text, listed_by: text }),
    'A playbook request was listed',
  ),
  'playbook_request.awaiting_admin': spec(
    'C',
    z.looseObject({ request_id: id, package_id: id, title: text, code: text, deadline_hours: count }),
    'A playbook request awaits an administrator',
  ),
  'playbook_request.returned': spec(
    'C',
    z.looseObject({
      request_id: id,
      package_id: optional(id),
      title: text,
      notes: z.array(z.looseObject({ key: text, kind: text, text, detail: optional(strings) })),
    }),
    'A playbook request was returned',
  ),
  workflow_creation_status: spec(
    'C',
    z.looseObject({ process_id: id, status: text, workflow_id: optional(id), workflow_name: optional(text), error: optional(anyValue) }),
    'Progress of a workflow being created',
  ),
  llm_generation_status: spec('C', z.looseObject({ generation_id: id, status: text, result: optional(anyValue) }), 'Progress of a generation'),
  llm_key_missing: spec('C', z.looseObject({ ...run, event: text, message: text }), 'A step needed a model key the organization lacks'),
  custom_table_dropped_fields: spec(
    'C',
    z.looseObject({ ...stepAt, table: text, dropped: strings }),
    'A write to a custom table carried undeclared fields, which were dropped',
  ),
  'risk.high': spec('R', riskPayload, 'The risk check decided block (or review, when so configured)'),
  'risk.low': spec('R', riskPayload, 'The risk check decided allow'),
} satisfies Record<string, EventSpec>;

export type EventName = keyof typeof CATALOGUE;
export const EVENT_NAMES = Object.keys(CATALOGUE) as EventName[];
export const REGISTRABLE_EVENTS = EVENT_NAMES.filter((e) => CATALOGUE[e].kind === 'R');

const byAlias = new Map<string, EventName>(EVENT_NAMES.flatMap((e) => {
  const alias = (CATALOGUE[e] as EventSpec).alias;
  return alias ? [[alias, e] as const] : [];
}));

/** The catalogue name of `name`, which may be an alias (`workflow.started`); undefined if unknown. */
export function canonicalEvent(name: string): EventName | undefined {
  if (Object.hasOwn(CATALOGUE, name)) return name as EventName;
  return byAlias.get(name);
}

export const isDocumentEvent = (event: EventName): boolean => event.startsWith('document.');

/**
 * An emitted event `{event, payload}`: a known name (or alias, answered as the catalogue name) and a
 * payload of its shape; issues name the payload field that is wrong.
 */
export const emittedEventSchema = z
  .object({ event: z.string().min(1).max(128), payload: z.record(z.string(), z.unknown()) })
  .transform((e, ctx) => {
    const event = canonicalEvent(e.event);
    if (!event) {
      ctx.addIssue({ code: 'custom', path: ['event'], message: `${JSON.stringify(e.event).slice(0, 80)} is not in the event catalogue (GET /webhooks/event-types)` });
      return z.NEVER;
    }
    const parsed = CATALOGUE[event].payload.safeParse(e.payload);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['payload', ...issue.path], message: `${issue.message} (${event})` } as never);
      return z.NEVER;
    }
    return { event, payload: parsed.data };
  });
export type EmittedEvent = z.output<typeof emittedEventSchema>;

/** The catalogue as documentation: each event with its kind, alias and payload JSON schema. */
export function eventTypes(): { name: EventName; kind: EventKind; registrable: boolean; alias: string | null; description: string; schema: unknown }[] {
  return EVENT_NAMES.map((name) => {
    const s: EventSpec = CATALOGUE[name];
    return {
      name,
      kind: s.kind,
      registrable: s.kind === 'R',
      alias: s.alias ?? null,
      description: s.description,
      schema: z.toJSONSchema(s.payload, { unrepresentable: 'any', io: 'input' }),
    };
  });
}
