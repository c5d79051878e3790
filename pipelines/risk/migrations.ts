import type { Migration } from '../../infra/analytics/types.js';

/**
 * Tables of the risk check. risk_checks, risk_feedback and risk_overrides are written by the
 * `risk` role from the `risk.checks` topic (ReplacingMergeTree by id, so a redelivered batch
 * leaves one row each); the others are the service's metadata, written by the API.
 *
 * False-positive and false-negative rates per organization:
 *   SELECT org_id, countIf(feedback_type = 'false_positive') / count() AS fp_rate,
 *          countIf(feedback_type = 'false_negative') / count() AS fn_rate
 *   FROM risk_feedback FINAL GROUP BY org_id
 */
export const riskMigration: Migration = {
  id: 'risk-001',
  statements: [
    `CREATE TABLE IF NOT EXISTS risk_checks (
      org_id String,
      request_id String,
      created_at DateTime64(3, 'UTC'),
      action LowCardinality(String),
      user_id Nullable(String),
      session_id Nullable(String),
      device_id Nullable(String),
      email Nullable(String),
      ip Nullable(String),
      phone Nullable(String),
      country LowCardinality(Nullable(String)),
      outcome LowCardinality(String),
      score Float64,
      reasons Array(String),
      payload String
    ) ENGINE = ReplacingMergeTree ORDER BY (org_id, request_id)`,
    `CREATE TABLE IF NOT EXISTS risk_feedback (
      org_id String,
      feedback_id String,
      request_id String,
      user_id Nullable(String),
      feedback_type LowCardinality(String),
      actual_outcome LowCardinality(String),
      original_outcome LowCardinality(Nullable(String)),
      reported_by String,
      notes Nullable(String),
      received_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree ORDER BY (org_id, feedback_id)`,
    `CREATE TABLE IF NOT EXISTS risk_overrides (
      org_id String,
      request_id String,
      user_id Nullable(String),
      challenge_id String,
      outcome LowCardinality(String),
      reason String,
      at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree ORDER BY (org_id, request_id, challenge_id)`,
    `CREATE TABLE IF NOT EXISTS risk_whitelist (
      org_id String,
      id String,
      entity_type LowCardinality(String),
      identifier String,
      reason String,
      verified_by String,
      verification_method LowCardinality(String),
      created_at DateTime64(3, 'UTC'),
      expires_at DateTime64(3, 'UTC'),
      deleted UInt8,
      version UInt64
    ) ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, id)`,
    `CREATE TABLE IF NOT EXISTS risk_weights (
      org_id String,
      version UInt64,
      config String,
      created_at DateTime64(3, 'UTC')
    ) ENGINE = MergeTree ORDER BY (org_id, version)`,
    `CREATE TABLE IF NOT EXISTS risk_webhooks (
      org_id String,
      url String,
      secret String,
      events Array(String),
      enabled UInt8,
      updated_at DateTime64(3, 'UTC'),
      version UInt64
    ) ENGINE = ReplacingMergeTree(version) ORDER BY org_id`,
    `CREATE TABLE IF NOT EXISTS risk_challenges (
      org_id String,
      challenge_id String,
      request_id String,
      user_id Nullable(String),
      type LowCardinality(String),
      destination_hash String,
      code_hash String,
      created_at DateTime64(3, 'UTC'),
      expires_at DateTime64(3, 'UTC')
    ) ENGINE = ReplacingMergeTree ORDER BY (org_id, challenge_id)`,
  ],
};
