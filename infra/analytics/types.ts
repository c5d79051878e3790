import type { ClickHouseClient } from '@clickhouse/client';

/** Analytics go through one @clickhouse/client code path: HTTP to a server, or chDB in process. */
export type Analytics = ClickHouseClient;

/**
 * A schema migration. Statements must be idempotent (CREATE ... IF NOT EXISTS, ADD COLUMN IF NOT
 * EXISTS): migrations run at every start-up and a half-applied run is simply run again.
 * `{db}` in a statement is replaced by the configured database name.
 */
export interface Migration {
  id: string;
  statements: string[];
}
