import { z } from 'zod';
import type { Platform } from '../../infra/platform.js';
import type { RuleResult } from '../../domain/rules/rule.js';
import { clickhouseDateTime, parseDateTime } from '../../domain/rules/values.js';
import { DECISION_HEADER, RESULTS_HEADER, SIGNATURE_HEADER } from './decision-headers.js';
import type { DecisionSigner } from './decision-signing.js';
import type { Decided } from './engine.js';

export const TRANSACTIONS_TOPIC = 'transactions';


export const decisionSummary = z.object({
  decided_at: z.string().refine((s) => parseDateTime(s) !== null, 'decided_at must be an RFC 3339 datetime'),
  score: z.number(),
  triggered_rules_count: z.number().int().min(0),
});
export type DecisionSummary = z.infer<typeof decisionSummary>;

const flag = z.literal([0, 1]);
export const ruleResults: z.ZodType<RuleResult[]> = z.array(z.tuple([z.string().min(1), z.number().int().nonnegative(), flag, z.number(), z.array(flag)]));

/**
 * The exact text `ruleResultsJson` writes: no spaces, plain numbers. Text of this shape is valid
 * RuleResult[] JSON (a test holds it to the schema), so the decisions consumer checks a header
 * with this one pattern and stores it as written; any other text is parsed and checked by
 * `ruleResults`. Scores have at most 21 integer digits and two exponent digits, so no number is infinite.
 */
const COMPACT_RULE_RESULTS = (() => {
  const id = String.raw`"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})+"`;
  // At most 15 digits: the schema refuses integers beyond 2^53 (16 digits), which no version reaches.
  const version = String.raw`(?:0|[1-9]\d{0,14})`;
  // JSON.stringify writes up to 21 integer digits before it turns to exponents; more could be infinite.
  const score = String.raw`-?(?:0|[1-9]\d{0,20})(?:\.\d+)?(?:[eE][+-]?\d{1,2})?`;
  const tuple = String.raw`\[${id},${version},[01],${score},\[(?:[01](?:,[01])*)?\]\]`;
  return new RegExp(String.raw`^\[(?:${tuple}(?:,${tuple})*)?\]$`);
})();

export const isCompactRuleResults = (text: string): boolean => COMPACT_RULE_RESULTS.test(text);

export const transactionMessage = z.looseObject({
  org_id: z.string().min(1),
  transaction_id: z.string().min(1),
  entity_id: z.string().min(1),
});

/** What the topic carries of a decision: the summary, and the rule results as JSON text. */
export interface SerialisedDecision {
  summary: DecisionSummary;
  resultsJson: string;
}

export const serialise = (d: Decided): SerialisedDecision => ({
  summary: { decided_at: d.decision.decided_at, score: d.decision.score, triggered_rules_count: d.decision.triggered_rules_count },
  resultsJson: d.resultsJson,
});

/** Publishes a transaction with its decision; resolves once the log has it durably. */
export async function publishTransaction(platform: Platform, signer: DecisionSigner, orgId: string, tx: Record<string, unknown>, d: SerialisedDecision): Promise<void> {
  const value = await platform.codec.encode(TRANSACTIONS_TOPIC, { ...tx, org_id: orgId });
  const decision = JSON.stringify(d.summary);
  const headers = { [DECISION_HEADER]: decision, [RESULTS_HEADER]: d.resultsJson, [SIGNATURE_HEADER]: signer.sign(value, decision, d.resultsJson) };
  await platform.bus.send(TRANSACTIONS_TOPIC, [{ key: `${orgId}:${String(tx.entity_id)}`, value, headers }]);
}

/**
 * ReplacingMergeTree keeps the row of the highest version, and the first decision must stay: a
 * transaction a producer published is evaluated again when it is delivered again (a crash before
 * the commit), perhaps against changed rules or counters, later. So the version falls as the
 * decision time grows, and the earliest decision wins. A decision made at the edge travels with
 * the message and is the same row on every delivery.
 */
export const decisionVersion = (decidedAtMs: number): number => Number.MAX_SAFE_INTEGER - decidedAtMs;

/**
 * The row of the `decisions` table as one JSONEachRow line, versioned by `decisionVersion`.
 * `resultsJson` is checked RuleResult[] JSON, spliced in as it is: an array of named tuples
 * written as JSON arrays (see DECISIONS_INSERT_SETTINGS).
 */
export function decisionLine(orgId: string, tx: Record<string, unknown>, summary: DecisionSummary, resultsJson: string): string {
  const decidedAt = parseDateTime(summary.decided_at)!;
  const head = JSON.stringify({
    org_id: orgId,
    transaction_id: String(tx.transaction_id),
    entity_id: String(tx.entity_id),
    triggered_rules_count: summary.triggered_rules_count,
    score: summary.score,
    transaction: JSON.stringify(tx),
    decided_at: clickhouseDateTime(decidedAt),
    version: decisionVersion(decidedAt),
  });
  return `${head.slice(0, -1)},"rule_results":${resultsJson}}`;
}

/** Tuples as positional arrays, half the bytes of objects with names. */
export const DECISIONS_INSERT_SETTINGS = { input_format_json_named_tuples_as_objects: 0 } as const;
