/**
 * Headers of the `transactions` topic, beside (not inside) transactions-topic.ts so that the topic
 * and its signer do not import each other. A message of the topic (CONTRACTS.md 1b): the transaction request plus `org_id`
 * (schemas/avro/transactions.avsc). When the rule engine already evaluated it (POST /transaction),
 * the decision travels in two headers, so the value keeps the producers' schema: DECISION_HEADER
 * holds `{decided_at, score, triggered_rules_count}` and RESULTS_HEADER the rule results
 * (RuleResult[]), as JSON, signed in SIGNATURE_HEADER (decision-signing.ts). Producers that
 * publish directly send none of them and the consumer evaluates, as it does any message whose
 * signature does not verify. Custom fields are top-level keys, checked against the organization's registered
 * fields by the consumer.
 */
export const DECISION_HEADER = 'x-weir-decision';
export const RESULTS_HEADER = 'x-weir-rule-results';
export const SIGNATURE_HEADER = 'x-weir-decision-signature';
