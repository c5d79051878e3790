import { z } from 'zod';
import { REGISTRABLE_EVENTS, canonicalEvent, CATALOGUE } from '../../domain/webhooks/catalogue.js';
import { isStandardSecret } from '../../domain/webhooks/signing.js';

/**
 * Wire schemas of the workflow webhooks service (Document 3 part B, CONTRACTS.md 7): the single
 * source of request validation and of the OpenAPI document.
 */

export const MAX_GRACE_SECONDS = 7 * 86_400;

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' })
  .max(2048)
  .refine((u) => !new URL(u).username && !new URL(u).password, 'must not carry credentials');

const registrableEvent = z
  .string()
  .transform((name, ctx) => {
    const event = canonicalEvent(name);
    if (event && CATALOGUE[event].kind === 'R') return event;
    ctx.addIssue({
      code: 'custom',
      message: event
        ? `${name} is delivered only to the catch-all address (POST /org-config webhook_url)`
        : `${name} is not an event; registrable events: ${REGISTRABLE_EVENTS.join(', ')}`,
    });
    return z.NEVER;
  })
  .meta({ description: 'A registrable event name or alias (workflow.started etc.); stored under its catalogue name', example: 'workflow_run_completed' });

export const SECRET_MIN = 8;
export const SECRET_MAX = 256;
/** A signing secret the integrator brings: any 8 to 256 characters (risk webhook configuration too). */
export const signingSecret = z.string().min(SECRET_MIN, `must be ${SECRET_MIN} to ${SECRET_MAX} characters`).max(SECRET_MAX, `must be ${SECRET_MIN} to ${SECRET_MAX} characters`);
const secret = signingSecret.meta({ description: 'Signing secret of 8 to 256 characters; never returned. With standard_webhooks it must be whsec_ followed by base64 of at least 24 bytes', example: 'sec-4f1a2b-main' });

export const filterSchema = z
  .strictObject({
    tags: z.array(z.string().min(1).max(128)).max(50).optional().meta({ description: 'Matches when the payload shares at least one tag' }),
    content_type: z.string().min(1).max(255).optional().meta({ description: "Matches the payload's content_type exactly" }),
  })
  .meta({ id: 'WebhookFilter', description: 'Honored only for document events' });

const autoPayload = z.record(z.string(), z.unknown()).meta({ description: "Merged into every payload sent to the target; the event's own fields win" });

const standardWebhooks = z.boolean().meta({ description: 'Also sign with Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)' });

const needsStandardSecret = (b: { standard_webhooks?: boolean; secret?: string | null }, ctx: z.RefinementCtx) => {
  if (b.standard_webhooks && b.secret && !isStandardSecret(b.secret)) ctx.addIssue({ code: 'custom', path: ['secret'], message: 'with standard_webhooks, must be whsec_ followed by base64 of at least 24 bytes' });
};

export const registrationBody = z
  .strictObject({
    event: registrableEvent,
    url: httpUrl,
    secret: secret.optional(),
    filter: filterSchema.optional(),
    auto_payload: autoPayload.optional(),
    standard_webhooks: standardWebhooks.optional(),
  })
  .superRefine((b, ctx) => {
    if (b.standard_webhooks && !b.secret) ctx.addIssue({ code: 'custom', path: ['secret'], message: 'is required with standard_webhooks' });
    needsStandardSecret(b, ctx);
  })
  .meta({
    id: 'WebhookRegistrationRequest',
    description: 'auto_payload is bounded by WEBHOOK_AUTO_PAYLOAD_LIMIT_BYTES, registrations per organization by WEBHOOK_REGISTRATIONS_PER_ORG (each a 400 naming it)',
    example: { event: 'workflow_run_completed', url: 'https://example.com/hooks/weir', secret: 'sec-4f1a2b-main', auto_payload: { tenant: 't-42' } },
  });
export type RegistrationBody = z.output<typeof registrationBody>;

const managedBy = z.enum(['risk_webhook_config']).nullable().meta({ description: 'risk_webhook_config: kept by PUT /v1/webhooks/config (changes made here are overwritten by its next PUT); null: the organization\'s own' });

/** Fields GET answers that a PATCH may send back; they are ignored, so a registration read is a valid change. */
const readOnly = {
  id: z.string().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  has_secret: z.boolean().optional(),
  secret_rotation_ends_at: z.string().nullable().optional(),
  disabled_reason: z.string().nullable().optional(),
  managed_by: managedBy.optional(),
};

export const registrationPatch = z
  .strictObject({
    ...readOnly,
    event: registrableEvent.optional(),
    url: httpUrl.optional(),
    secret: secret.nullable().optional().meta({ description: 'A new secret replaces the old at once (use rotate-secret for a grace period); null removes it' }),
    filter: filterSchema.nullable().optional(),
    auto_payload: autoPayload.nullable().optional(),
    standard_webhooks: standardWebhooks.optional(),
    enabled: z.boolean().optional(),
  })
  .superRefine(needsStandardSecret)
  .transform(({ id: _id, created_at: _c, updated_at: _u, has_secret: _h, secret_rotation_ends_at: _s, disabled_reason: _d, managed_by: _m, ...change }) => change)
  .meta({
    id: 'WebhookRegistrationPatch',
    description: 'Fields left out keep their value. What GET answers may be sent back as is: its read-only fields (id, created_at, updated_at, has_secret, secret_rotation_ends_at, disabled_reason, managed_by) are ignored.',
    example: { url: 'https://example.com/hooks/weir', filter: null, auto_payload: { tenant: 't-42' }, enabled: true },
  });
export type RegistrationPatch = z.output<typeof registrationPatch>;

export const rotateSecretBody = z
  .strictObject({
    secret,
    grace_period_seconds: z.number().int().min(0).max(MAX_GRACE_SECONDS).default(86_400).meta({ description: 'How long the previous secret still signs alongside the new one' }),
  })
  .meta({ id: 'WebhookSecretRotation' });

export const registrationSchema = z
  .object({
    id: z.string(),
    event: z.string(),
    url: z.string(),
    filter: filterSchema.nullable(),
    auto_payload: autoPayload.nullable(),
    enabled: z.boolean(),
    created_at: z.string(),
    has_secret: z.boolean(),
    standard_webhooks: z.boolean(),
    secret_rotation_ends_at: z.string().nullable().meta({ description: 'While set, the previous secret still signs too' }),
    disabled_reason: z.string().nullable().meta({ description: 'Why the service disabled the target, when it did' }),
    updated_at: z.string(),
    managed_by: managedBy,
  })
  .meta({ id: 'WebhookRegistration' });

export const registrationsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100).meta({ description: 'Registrations per page' }),
  cursor: z.string().max(64).optional().meta({ description: 'next_cursor of the previous page' }),
});

export const registrationsPage = z
  .object({
    data: z.array(registrationSchema),
    next_cursor: z.string().nullable().meta({ description: 'Pass as cursor for the next page; null on the last page' }),
  })
  .meta({
    id: 'WebhookRegistrations',
    example: {
      data: [
        {
          id: 'wh_3f9c1a0b5d7e2f4a6c8e0b1d',
          event: 'risk.high',
          url: 'https://example.com/hooks/risk',
          filter: null,
          auto_payload: null,
          enabled: true,
          created_at: '2026-01-01T12:00:00.000Z',
          has_secret: true,
          standard_webhooks: false,
          secret_rotation_ends_at: null,
          disabled_reason: null,
          updated_at: '2026-01-01T12:00:00.000Z',
          managed_by: 'risk_webhook_config',
        },
      ],
      next_cursor: 'wh_3f9c1a0b5d7e2f4a6c8e0b1d',
    },
  });

export const circuitSchema = z
  .object({
    url: z.string(),
    state: z.enum(['closed', 'open', 'half_open']).meta({ description: 'open: deliveries to this URL from this organization wait until open_until; half_open: one probe goes out, the rest wait for its answer' }),
    consecutive_failures: z.number().int(),
    open_until: z.string().nullable(),
    recorded_at: z.string().nullable().meta({ description: 'When a delivery worker last recorded the state; null while closed' }),
  })
  .meta({
    id: 'WebhookCircuit',
    description: 'The circuit of the registration\'s organization and URL, as the delivery workers last recorded it (each worker process also counts failures of its own)',
    example: { url: 'https://example.com/hooks/weir', state: 'open', consecutive_failures: 3, open_until: '2026-01-01T12:05:00.000Z', recorded_at: '2026-01-01T12:00:00.000Z' },
  });

export const eventBody = z
  .strictObject({
    event: z.string().min(1).max(128),
    payload: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WorkflowEvent' });

export const eventAccepted = z.object({ delivery_ids: z.array(z.string()) }).meta({ id: 'WorkflowEventAccepted' });

export const orgConfigBody = z
  .strictObject({
    key: z.literal('webhook_url', { error: 'must be webhook_url, the only organization setting of this service' }),
    value: httpUrl.nullable().meta({ description: 'The catch-all address; null removes it' }),
  })
  .meta({ id: 'OrgConfigRequest' });

export const orgConfigSchema = z.object({ key: z.literal('webhook_url'), value: z.string().nullable() }).meta({ id: 'OrgConfig' });

export const deliveryAttemptSchema = z
  .object({
    delivery_id: z.string(),
    event: z.string(),
    attempt: z.number().int(),
    status: z.enum(['succeeded', 'failed', 'retrying', 'deferred', 'skipped']).meta({
      description: 'succeeded: 2xx; retrying: failed, next attempt at next_attempt_at; failed: final; deferred: the circuit was open, not attempted; skipped: target disabled or gone',
    }),
    http_status: z.number().int().nullable(),
    latency_ms: z.number().int(),
    error: z.string().nullable(),
    response_body: z.string().nullable().meta({ description: 'At most the first 4 KiB' }),
    url: z.string(),
    attempted_at: z.string(),
    next_attempt_at: z.string().nullable(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const deliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  delivery_id: z.string().optional(),
  status: deliveryAttemptSchema.shape.status.optional(),
});

export const deliveriesSchema = z.object({ data: z.array(deliveryAttemptSchema) }).meta({ id: 'WebhookDeliveries' });

export const eventTypesSchema = z
  .object({
    data: z.array(
      z.object({
        name: z.string(),
        kind: z.enum(['R', 'C']),
        registrable: z.boolean(),
        alias: z.string().nullable(),
        description: z.string(),
        schema: z.record(z.string(), z.unknown()).meta({ description: 'JSON Schema of the payload' }),
      }),
    ),
  })
  .meta({ id: 'WebhookEventTypes' });

export const approvalSchema = z
  .object({
    run_id: z.string(),
    step_id: z.string(),
    approval_id: z.string().meta({ description: 'The task id of POST /sdk/tasks/{taskId}/decide' }),
    approver_role: z.string().nullable(),
    expires_at: z.string().nullable(),
    status: z.enum(['pending', 'approved', 'rejected']),
  })
  .meta({ id: 'PendingApproval' });

export const decideBody = z
  .strictObject({
    approved: z.boolean(),
    comment: z.string().max(4000).optional(),
  })
  .meta({ id: 'ApprovalDecision' });

export const decisionSchema = z
  .object({ run_id: z.string(), step_id: z.string(), approval_id: z.string(), approved: z.boolean(), comment: z.string().nullable(), decided_at: z.string() })
  .meta({ id: 'ApprovalDecided' });

export const errorBodySchema = z
  .object({ status: z.literal('error'), error: z.string(), message: z.string(), request_id: z.string() })
  .meta({ id: 'WebhooksError' });

const email = z.email().max(320);

export const sdkUserBody = z
  .strictObject({
    email,
    permissions: z.strictObject({ approver_roles: z.array(z.string().min(1).max(128)).max(100) }),
  })
  .meta({ id: 'SdkUserRequest' });

export const sdkUserSchema = z
  .object({ id: z.string(), email: z.string(), permissions: z.object({ approver_roles: z.array(z.string()) }) })
  .meta({ id: 'SdkUser' });

export const signInStartBody = z.strictObject({ org_id: z.string().min(1), email }).meta({ id: 'SdkSignInStart' });
export const signInStarted = z
  .object({ sent: z.literal(true), dev_code: z.string().optional().meta({ description: 'Only when the server runs with OTP_DEV_ECHO=true, and only for a known user' }) })
  .meta({ id: 'SdkSignInStarted' });

export const signInVerifyBody = z.strictObject({ org_id: z.string().min(1), email, code: z.string().regex(/^\d{6}$/, 'must be the 6-digit code') }).meta({ id: 'SdkSignInVerify' });
export const sdkSessionSchema = z
  .object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), user: sdkUserSchema })
  .meta({ id: 'SdkSession' });
