import type { Migration } from '../../infra/analytics/types.js';

/**
 * Definitions are rows of ReplacingMergeTree tables keyed by organization and name: a write
 * inserts a newer version (a delete sets `deleted`), reads use FINAL. Decisions are keyed by
 * (org_id, transaction_id), so a batch the consumer writes again after a crash collapses into
 * the row already there (exactly-once effect; queries use FINAL).
 */
export const rulesMigrations: Migration[] = [
  {
    id: 'rules-001-definitions',
    statements: [
      `CREATE TABLE IF NOT EXISTS rule_fields (org_id String, name String, field_type LowCardinality(String), version UInt64, deleted UInt8 DEFAULT 0)
       ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, name)`,
      `CREATE TABLE IF NOT EXISTS rule_rules (org_id String, rule_id String, body String, version UInt64, deleted UInt8 DEFAULT 0)
       ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, rule_id)`,
      `CREATE TABLE IF NOT EXISTS rule_tables (org_id String, table_name String, definition String, version UInt64, deleted UInt8 DEFAULT 0)
       ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, table_name)`,
    ],
  },
  {
    id: 'rules-002-decisions',
    statements: [
      `CREATE TABLE IF NOT EXISTS decisions (
         org_id String, transaction_id String, entity_id String,
         triggered_rules_count UInt32, score Float64,
         rule_results Array(Tuple(rule_id String, rule_version UInt64, triggered UInt8, score Float64, evaluations Array(UInt8))),
         transaction String,
         decided_at DateTime64(3, 'UTC'), version UInt64)
       ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, transaction_id)`,
      // Every version of every rule, kept: a decision's rule_results name (rule_id, rule_version),
      // and rule_rules keeps only the latest version.
      `CREATE TABLE IF NOT EXISTS rule_history (org_id String, rule_id String, version UInt64, body String)
       ENGINE = ReplacingMergeTree ORDER BY (org_id, rule_id, version)`,
    ],
  },
];
