import { z } from 'zod';
import type { Platform } from '../../infra/platform.js';
import { clickhouseDateTime, parseDateTime } from '../../domain/rules/values.js';
import type { Decision } from './engine.js';

export const TRANSACTIONS_TOPIC = 'transactions';

/**
 * A message of the `transactions` topic (CONTRACTS.md 1b): the transaction request plus `org_id`
 * (schemas/avro/transactions.avsc). When the rule engine already evaluated it (POST /transaction),
 * the decision travels in two headers, so the value keeps the producers' schema: DECISION_HEADER
 * holds `{decided_at, score, triggered_rules_count}` and RULES_HEADER the processedRules array, as
 * JSON. Producers that publish directly send neither and the consumer evaluates. Custom fields are
 * top-level keys, checked against the organization's registered fields by the consumer.
 */
export const DECISION_HEADER = 'x-weir-decision';
export const RULES_HEADER = 'x-weir-decision-rules';

export const decisionSummary = z.looseObject({
  decided_at: z.string().refine((s) => parseDateTime(s) !== null, 'decided_at must be an RFC 3339 datetime'),
  score: z.number(),
  triggered_rules_count: z.number().int().min(0),
});
export type DecisionSummary = z.infer<typeof decisionSummary>;

export const transactionMessage = z.looseObject({
  org_id: z.string().min(1),
  transaction_id: z.string().min(1),
  entity_id: z.string().min(1),
});

/** A decision serialised once: the HTTP answer and the message headers reuse `rulesJson`. */
export interface SerialisedDecision {
  summary: DecisionSummary;
  rulesJson: string;
}

export const serialise = (d: { decision: Decision; rulesJson: string }): SerialisedDecision => ({
  summary: { decided_at: d.decision.decided_at, score: d.decision.score, triggered_rules_count: d.decision.triggered_rules_count },
  rulesJson: d.rulesJson,
});

/** Publishes a transaction with its decision; resolves once the log has it durably. */
export async function publishTransaction(platform: Platform, orgId: string, tx: Record<string, unknown>, d: SerialisedDecision): Promise<void> {
  const value = await platform.codec.encode(TRANSACTIONS_TOPIC, { ...tx, org_id: orgId });
  await platform.bus.send(TRANSACTIONS_TOPIC, [
    { key: `${orgId}:${String(tx.entity_id)}`, value, headers: { [DECISION_HEADER]: JSON.stringify(d.summary), [RULES_HEADER]: d.rulesJson } },
  ]);
}

/** The row of the `decisions` table; `version` is the decision time, so a replay writes the same row again. */
export function decisionRow(orgId: string, tx: Record<string, unknown>, d: SerialisedDecision) {
  const decidedAt = parseDateTime(d.summary.decided_at)!;
  return {
    org_id: orgId,
    transaction_id: String(tx.transaction_id),
    entity_id: String(tx.entity_id),
    triggered_rules_count: d.summary.triggered_rules_count,
    score: d.summary.score,
    rule_results: d.rulesJson,
    transaction: JSON.stringify(tx),
    decided_at: clickhouseDateTime(decidedAt),
    version: decidedAt,
  };
}
