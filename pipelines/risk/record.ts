import { z } from 'zod';
import { OUTCOMES } from '../../domain/risk/actions.js';
import { FEEDBACK_TYPES } from '../../schemas/http/risk.js';

/**
 * Records of the `risk.checks` topic (key `<org_id>`): every check as answered, every feedback on
 * one, and every decision a verified challenge turned into allow. The `risk` role writes them to
 * ClickHouse (migrations.ts), so false-positive and false-negative rates per organization are one query.
 */
export const RISK_CHECKS_TOPIC = 'risk.checks';

const base = { org_id: z.string().min(1), request_id: z.string().min(1), user_id: z.string().nullish() };

export const checkRecord = z.object({
  kind: z.literal('check'),
  ...base,
  created_at: z.iso.datetime({ offset: true }),
  action: z.string(),
  session_id: z.string().nullish(),
  device_id: z.string().nullish(),
  email: z.string().nullish(),
  ip: z.string().nullish(),
  phone: z.string().nullish(),
  country: z.string().nullish(),
  outcome: z.enum(OUTCOMES),
  score: z.number().min(0).max(100),
  reasons: z.array(z.string()),
  /** The request and the response, as exchanged. */
  payload: z.unknown(),
});

export const feedbackRecord = z.object({
  kind: z.literal('feedback'),
  ...base,
  feedback_id: z.string().min(1),
  feedback_type: z.enum(FEEDBACK_TYPES),
  actual_outcome: z.enum(OUTCOMES),
  original_outcome: z.enum(OUTCOMES).nullish(),
  reported_by: z.string(),
  notes: z.string().nullish(),
  received_at: z.iso.datetime({ offset: true }),
});

export const overrideRecord = z.object({
  kind: z.literal('override'),
  ...base,
  challenge_id: z.string().min(1),
  outcome: z.enum(OUTCOMES),
  reason: z.string(),
  at: z.iso.datetime({ offset: true }),
});

export const riskRecord = z.discriminatedUnion('kind', [checkRecord, feedbackRecord, overrideRecord]);
export type RiskRecord = z.infer<typeof riskRecord>;
export type CheckRecord = z.infer<typeof checkRecord>;
