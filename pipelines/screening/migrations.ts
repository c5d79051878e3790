import type { Migration } from '../../infra/analytics/types.js';
import { IDEMPOTENCY_TABLE } from './idempotency.js';

/** Screening's tables: the audit trail of every screening, each organization's settings, and idempotent replays. */
export const screeningMigrations: Migration[] = [
  {
    id: 'screening-001',
    statements: [
      `CREATE TABLE IF NOT EXISTS screenings (
        audit_id String,
        org_id String,
        name String,
        decision LowCardinality(String),
        score Nullable(Float64),
        entity_id Nullable(String),
        list_version String,
        created_at DateTime64(3, 'UTC'),
        payload String
      ) ENGINE = ReplacingMergeTree ORDER BY (org_id, audit_id)`,
      `CREATE TABLE IF NOT EXISTS aml_config (
        org_id String,
        settings String,
        version UInt64,
        updated_at DateTime64(3, 'UTC')
      ) ENGINE = ReplacingMergeTree(version) ORDER BY org_id`,
    ],
  },
  { id: 'screening-002-idempotency', statements: [IDEMPOTENCY_TABLE] },
];
