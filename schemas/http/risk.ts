import { z } from 'zod';
import { CODE_FAILURES } from '../../domain/one-time-codes.js';
import { ACTIONS, OUTCOMES } from '../../domain/risk/actions.js';
import { DEFAULT_POINTS } from '../../domain/risk/default-points.js';
import { signingSecret } from './webhooks.js';

/**
 * Wire schemas of the risk check service (Document 1 part C, CONTRACTS.md sections 2 and 5): the
 * single source of the request validation, the domain's input types and the OpenAPI document.
 */

/** Bounds of the raw behavioral arrays: enough for minutes of a page, small enough to score in microseconds. */
export const MAX_MOUSE_EVENTS = 5_000;
export const MAX_KEYSTROKES = 5_000;
export const MAX_TIMINGS = 1_000;

const E164 = /^\+[1-9]\d{6,14}$/;
const shortText = (max: number) => z.string().max(max, `must be at most ${max} characters`);

const fingerprintSchema = z
  .looseObject({
    screen: z.looseObject({ width: z.number().int().min(0).max(100_000), height: z.number().int().min(0).max(100_000), colorDepth: z.number().int().min(0).max(64) }).partial().optional(),
    timezone: shortText(64).optional(),
    language: shortText(64).optional(),
    canvas: shortText(4096).optional(),
    hardware: z.looseObject({ cores: z.number().int().min(0).max(1024), memory: z.number().min(0).max(4096) }).partial().optional(),
  })
  .meta({ id: 'RiskDeviceFingerprint' });

export const deviceSchema = z
  .looseObject({ user_agent: shortText(1024).optional(), fingerprint: fingerprintSchema.optional() })
  .meta({ id: 'RiskDevice', description: 'Device data the client script collected' });

export const behaviorSchema = z
  .looseObject({
    mouseMovements: z.number().int().min(0).max(10_000_000).optional(),
    clickPattern: shortText(64).optional(),
    keystrokeTimings: z.array(z.number().finite().min(0).max(600_000)).max(MAX_TIMINGS).optional().meta({ description: 'Milliseconds between keystrokes' }),
    scrollBehavior: shortText(64).optional(),
    timeOnPage: z.number().finite().min(0).max(86_400_000).optional().meta({ description: 'Milliseconds' }),
    formFillSpeed: z.number().finite().min(0).max(86_400_000).optional().meta({ description: 'Milliseconds to fill the form' }),
  })
  .meta({ id: 'RiskBehavior', description: 'Aggregated behavioral signals' });

const timestamp = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const behavioralSchema = z
  .looseObject({
    mouse: z
      .array(z.looseObject({ type: shortText(32), x: z.number().finite(), y: z.number().finite(), timestamp }))
      .max(MAX_MOUSE_EVENTS)
      .optional(),
    keystrokes: z
      .array(z.looseObject({ key: shortText(32), type: shortText(32), timestamp }))
      .max(MAX_KEYSTROKES)
      .optional(),
  })
  .meta({ id: 'RiskBehavioral', description: 'Raw mouse and keystroke events; timestamps are integer milliseconds' });

export const riskContextSchema = z
  .strictObject({
    action: z.enum(ACTIONS),
    user_id: z.string().min(1).max(256).optional(),
    session_id: z.string().min(1).max(256).optional(),
    timestamp: z.iso.datetime({ offset: true }).optional().meta({ description: 'ISO 8601; the time the user acted (default: now)' }),
  })
  .meta({ id: 'RiskContext' });

export const checkRequestSchema = z
  .strictObject({
    email: z.email('must be an email address').max(254).optional(),
    ip: z.union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' }).optional(),
    phone: z.string().regex(E164, 'must be an E.164 number such as +14155550100').optional(),
    device: deviceSchema.optional(),
    behavior: behaviorSchema.optional(),
    behavioral: behavioralSchema.optional(),
    context: riskContextSchema,
    expand: z.boolean().optional(),
  })
  .refine((r) => r.email !== undefined || r.ip !== undefined || r.phone !== undefined, { message: 'one of email, ip or phone is required', path: ['email'] })
  .meta({ id: 'RiskCheckRequest' });
export type CheckRequest = z.infer<typeof checkRequestSchema>;

export const decisionSchema = z
  .object({
    outcome: z.enum(OUTCOMES),
    score: z.number().min(0).max(100).meta({ description: 'Higher is riskier' }),
    confidence: z.number().min(0).max(1),
    reasons: z.array(z.string()),
    challenge_recommended: z.boolean().meta({ description: 'The score reached thresholds.challenge and the outcome is not block' }),
  })
  .meta({ id: 'RiskDecision' });

export const checkResponseSchema = z
  .object({
    request_id: z.string(),
    decision: decisionSchema,
    metadata: z.object({
      processing_time_ms: z.number(),
      baseline_sessions: z.number().int(),
      device_id: z.string().optional().meta({ description: 'Stable id of the device fingerprint; whitelist it as device_fingerprint' }),
      weights_version: z.number().int(),
    }),
    details: z.record(z.string(), z.unknown()).optional().meta({ description: 'With expand: every signal with its points, and the facts it was computed from' }),
  })
  .meta({ id: 'RiskCheckResponse' });

export const evalResponseSchema = z
  .object({
    eval_mode: z.literal(true),
    decision: z.enum(['ALLOW', 'REVIEW', 'BLOCK']),
    risk_score: z.number(),
    signals: z.object({ biometrics: z.string(), stability_score: z.number(), entropy_score: z.number(), reasoning: z.array(z.string()) }),
    context: z.object({ ip_reputation: z.string(), network: z.string(), baseline_sessions: z.number().int() }),
    original_response: checkResponseSchema,
  })
  .meta({ id: 'RiskEvalResponse' });

export const WHITELIST_TYPES = ['user', 'email', 'ip', 'phone', 'device_fingerprint'] as const;
export type WhitelistType = (typeof WHITELIST_TYPES)[number];

export const whitelistRequestSchema = z
  .strictObject({
    entity_type: z.enum(WHITELIST_TYPES),
    identifier: z.string().min(1).max(255, 'must be at most 255 characters'),
    reason: z.string().min(10, 'must be at least 10 characters').max(500, 'must be at most 500 characters'),
    duration_hours: z.number().int().min(1).max(720).default(168),
    verified_by: z.string().min(1).max(256),
    verification_method: z.enum(['phone_callback', 'document_review', 'manual_review', 'challenge_flow']),
  })
  .meta({ id: 'RiskWhitelistRequest' });
export type WhitelistRequest = z.infer<typeof whitelistRequestSchema>;

export const whitelistEntrySchema = z
  .object({ id: z.string(), entity_type: z.enum(WHITELIST_TYPES), identifier: z.string(), created_at: z.string(), expires_at: z.string() })
  .meta({ id: 'RiskWhitelistEntry' });

export const FEEDBACK_TYPES = ['false_positive', 'false_negative', 'correct'] as const;
export const feedbackRequestSchema = z
  .strictObject({
    request_id: z.string().min(1).max(128),
    feedback_type: z.enum(FEEDBACK_TYPES),
    actual_outcome: z.enum(OUTCOMES),
    reported_by: z.string().min(1).max(256),
    notes: z.string().max(1000, 'must be at most 1000 characters').optional(),
  })
  .meta({ id: 'RiskFeedbackRequest' });
export type FeedbackRequest = z.infer<typeof feedbackRequestSchema>;

export const feedbackResponseSchema = z.object({ feedback_id: z.string(), received_at: z.string() }).meta({ id: 'RiskFeedbackResponse' });

export const challengeIssueSchema = z
  .strictObject({
    challenge_type: z.enum(['email_otp', 'phone_otp']),
    email: z.email('must be an email address').max(254).optional(),
    phone: z.string().regex(E164, 'must be an E.164 number such as +14155550100').optional(),
    request_id: z.string().min(1).max(128),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.challenge_type === 'email_otp' && !c.email) ctx.addIssue({ code: 'custom', path: ['email'], message: 'is required for email_otp' });
    if (c.challenge_type === 'phone_otp' && !c.phone) ctx.addIssue({ code: 'custom', path: ['phone'], message: 'is required for phone_otp' });
  })
  .meta({ id: 'RiskChallengeIssueRequest' });
export type ChallengeIssue = z.infer<typeof challengeIssueSchema>;

export const challengeIssuedSchema = z
  .object({ challenge_id: z.string(), type: z.enum(['email_otp', 'phone_otp']), expires_at: z.string(), dev_code: z.string().optional().meta({ description: 'Only with OTP_DEV_ECHO=true' }) })
  .meta({ id: 'RiskChallengeIssued' });

export const challengeVerifySchema = z
  .strictObject({ challenge_id: z.string().min(1).max(128), code: z.string().regex(/^\d{6}$/, 'must be 6 digits') })
  .meta({ id: 'RiskChallengeVerifyRequest' });

export const challengeVerifiedSchema = z
  .object({
    verified: z.boolean(),
    decision: z.object({ outcome: z.enum(OUTCOMES), reasons: z.array(z.string()) }).optional(),
    error: z.literal('invalid_code').optional(),
    reason: z.enum(CODE_FAILURES).optional().describe('why the code was refused: no such challenge, past its 10 minutes, already used, replaced by a newer challenge of the same check, its 5 answers spent, or wrong'),
    message: z.string().optional(),
    attempts_left: z.number().int().min(0).optional(),
  })
  .meta({ id: 'RiskChallengeVerifyResponse', example: { verified: false, error: 'invalid_code', reason: 'mismatch', message: 'wrong code: 4 attempts left', attempts_left: 4 } });

const points = z.number().min(0).max(100);
const groupShape = <T extends Record<string, number>>(defaults: T) =>
  Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, points.default(v)])) as { [K in keyof T]: z.ZodDefault<typeof points> };
// Every field has a default, so an absent group is the defaults.
const group = <T extends Record<string, number>>(defaults: T) => z.strictObject(groupShape(defaults)).prefault({} as never);

export const scoringConfigSchema = z
  .strictObject({
    config_name: z.string().min(1).max(128).default('default'),
    is_active: z.boolean().default(true),
    thresholds: z
      .strictObject({ block: z.number().min(0).max(100).default(80), review: z.number().min(0).max(100).default(40), challenge: z.number().min(0).max(100).default(60) })
      .prefault({} as never)
      .refine((t) => t.review <= t.challenge && t.challenge <= t.block, { message: 'must satisfy review <= challenge <= block' }),
    ip: group(DEFAULT_POINTS.ip),
    email: group(DEFAULT_POINTS.email),
    phone: group(DEFAULT_POINTS.phone),
    behavior: group(DEFAULT_POINTS.behavior),
    velocity: z
      .strictObject({
        ...groupShape(DEFAULT_POINTS.velocity),
        max_requests: z.number().int().min(1).max(1_000_000).default(30).meta({ description: 'Checks per user, IP, email or device within window_minutes before velocity is exceeded' }),
        window_minutes: z.number().int().min(1).max(1440).default(60),
      })
      .prefault({} as never),
    session: group(DEFAULT_POINTS.session),
    continuous_auth: group(DEFAULT_POINTS.continuous_auth),
    fraud_ring: group(DEFAULT_POINTS.fraud_ring),
    features: z.strictObject({ behavioral_entropy: z.boolean().default(true), continuous_auth: z.boolean().default(true) }).prefault({} as never),
    high_risk_countries: z
      .array(z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in upper case'))
      .max(300)
      .nullable()
      .default(null)
      .meta({ description: 'Overrides the deployment list (RISK_HIGH_RISK_COUNTRIES) for this organization; null uses the deployment list' }),
    review_emits_high: z.boolean().default(false).meta({ description: 'Also emit risk.high for outcome review' }),
  })
  .meta({ id: 'RiskScoringConfig' });
export type ScoringConfig = z.infer<typeof scoringConfigSchema>;

export const storedScoringConfigSchema = scoringConfigSchema.safeExtend({ version: z.number().int().min(0), updated_at: z.string().nullable() }).meta({ id: 'RiskScoringConfigVersion' });

/**
 * A PUT of the weights: the whole configuration (absent fields take their defaults, named back in
 * `defaults_applied`), and what a GET answered may be sent back as it is: `version` is the version
 * the change was made from (a stale one is a 409 carrying current_version; absent, the PUT
 * overwrites whatever is stored), the read-only fields are ignored.
 */
export const scoringConfigPutSchema = scoringConfigSchema
  .safeExtend({
    version: z.number().int().min(0).optional().meta({ description: 'The version this configuration was read at; a stale one is a 409 (current_version in the body); absent overwrites' }),
    updated_at: z.string().nullable().optional().meta({ description: 'Read-only: ignored' }),
    defaults_applied: z.array(z.string()).optional().meta({ description: 'Read-only: ignored' }),
  })
  .meta({
    id: 'RiskScoringConfigPut',
    example: { config_name: 'strict', thresholds: { block: 90, review: 40, challenge: 60 }, ip: { tor: 90 }, high_risk_countries: ['KP', 'IR'], version: 3 },
  });

export const putScoringConfigAnswerSchema = storedScoringConfigSchema
  .safeExtend({ defaults_applied: z.array(z.string()).meta({ description: 'Fields the PUT did not send, set to their defaults (a PUT replaces the whole configuration)' }) })
  .meta({ id: 'RiskScoringConfigPutAnswer' });

export const WEBHOOK_EVENTS = ['risk.high', 'risk.low'] as const;
export const webhookConfigRequestSchema = z
  .strictObject({
    url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048).nullable().meta({ description: 'null: no risk webhook (enabled must then be false)' }),
    secret: signingSecret.optional().meta({ description: 'Signing secret of 8 to 256 characters; left out, the stored one stays', example: 'whsec-4f1a2b' }),
    events: z.array(z.enum(WEBHOOK_EVENTS)).max(2),
    enabled: z.boolean().default(true),
    has_secret: z.boolean().optional(),
    updated_at: z.string().optional(),
  })
  .superRefine((c, ctx) => {
    if (!c.enabled) return;
    if (c.url === null) ctx.addIssue({ code: 'custom', path: ['url'], message: 'is required while enabled' });
    if (c.events.length === 0) ctx.addIssue({ code: 'custom', path: ['events'], message: 'must name at least one event while enabled' });
  })
  .transform(({ has_secret: _h, updated_at: _u, ...config }) => config)
  .meta({
    id: 'RiskWebhookConfigRequest',
    description:
      'Replaces the whole configuration. What GET answers may be sent back as is: has_secret and updated_at are read-only and ignored. {url: null, events: [], enabled: false} (what GET answers before any configuration) removes the risk webhook.',
    example: { url: 'https://example.com/hooks/risk', secret: 'whsec-4f1a2b', events: ['risk.high'], enabled: true },
  });
export type WebhookConfigRequest = z.infer<typeof webhookConfigRequestSchema>;

export const webhookConfigSchema = z
  .object({
    url: z.string().nullable(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    enabled: z.boolean(),
    has_secret: z.boolean(),
    updated_at: z.string().optional().meta({ description: 'Absent before the first PUT' }),
  })
  .meta({
    id: 'RiskWebhookConfig',
    description: 'Before the first PUT: {url: null, events: [], enabled: false, has_secret: false}; the secret is never returned',
    example: { url: 'https://example.com/hooks/risk', events: ['risk.high'], enabled: true, has_secret: true, updated_at: '2026-01-01T12:00:00.000Z' },
  });

export const riskErrorBodySchema = z
  .object({
    error: z.string().meta({ description: 'Machine-readable code, e.g. validation_error, unauthorized, forbidden, not_found, rate_limited' }),
    message: z.string().meta({ description: 'What is wrong and where' }),
    details: z.record(z.string(), z.unknown()).meta({ description: 'Validation issues ({issues: [...]}) or other facts; {} when there are none' }),
    request_id: z.string().optional(),
  })
  .meta({ id: 'RiskError' });
