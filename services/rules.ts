import type { Platform } from '../infra/platform.js';
import { rulesRouter } from '../api/rules/index.js';
import { transactionLane } from '../api/rules/transaction.js';
import { createDefinitions } from '../pipelines/rules/definitions.js';
import { loadDecisionSigner } from '../pipelines/rules/decision-signing.js';
import { startDecisionsStage } from '../pipelines/rules/decisions-stage.js';
import { createEngine } from '../pipelines/rules/engine.js';
import { rulesMigrations } from '../pipelines/rules/migrations.js';
import { createTableData } from '../pipelines/rules/table-data.js';
import { TRANSACTIONS_TOPIC } from '../pipelines/rules/transactions-topic.js';
import type { CounterReader } from '../pipelines/ports.js';
import type { ServiceModule } from './types.js';

/** How stale another process's definition or lookup-row writes may be seen (local writes: at once). */
const SHARED_STATE_TTL_MS = 1_000;
/** Lookup tables up to this many rows are mirrored in process; larger ones are read by query. */
const MIRROR_MAX_ROWS = 200_000;

/**
 * The rule engine (Document 1 part A): fields, rules, custom tables and transaction evaluation
 * over HTTP; the `transactions` consumer (role `transactions`) writes every decision to ClickHouse.
 */
export function rulesService(deps: { counters: (platform: Platform) => CounterReader }): ServiceModule {
  return {
    name: 'rules',
    topics: [{ topic: TRANSACTIONS_TOPIC, partitions: 6 }],
    migrations: rulesMigrations,
    async create({ platform, keys }) {
      const { analytics, windows, clock } = platform;
      const definitions = createDefinitions(analytics, clock, SHARED_STATE_TTL_MS);
      const { config } = platform;
      const tableData = createTableData({ analytics, windows, clock, mirrorRefreshMs: SHARED_STATE_TTL_MS, mirrorMaxRows: MIRROR_MAX_ROWS, mirrorRowsPerOrg: config.QUOTA_LOOKUP_ROWS_PER_ORG });
      const engine = createEngine({ definitions, tableData, counters: deps.counters(platform), clock, trace: platform.config.TRANSACTION_TRACE });
      const signer = await loadDecisionSigner(config);
      const quotas = { rules: config.QUOTA_RULES_PER_ORG, tables: config.QUOTA_TABLES_PER_ORG, columns: config.QUOTA_COLUMNS_PER_ORG, lookupRows: config.QUOTA_LOOKUP_ROWS_PER_ORG };
      return {
        router: rulesRouter({ platform, keys, definitions, tableData, engine, signer, quotas }),
        lanes: [transactionLane({ platform, definitions, tableData, engine, signer, quotas })],
        workers: [{ role: 'transactions', name: 'rules.decisions', start: () => startDecisionsStage(platform, engine, signer) }],
      };
    },
  };
}
