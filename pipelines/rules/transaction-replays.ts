import { setTimeout as sleep } from 'node:timers/promises';
import type { Platform } from '../../infra/platform.js';
import { storedProcessedRule, type ProcessedRule, type Rule, type RuleResult } from '../../domain/rules/rule.js';
import { ruleResults } from './transactions-topic.js';

/** How long a transaction id is remembered at the edge: a request with it within this window is a replay. */
export const REPLAY_WINDOW_MS = 24 * 3_600_000;
/**
 * How long a replay waits for the decisions consumer to store the first request's decision (it
 * writes about every 200 ms). Past this the first request is taken as lost before the log held it
 * (a crash), and the replay is evaluated as a new transaction.
 */
const STORED_WAIT_MS = 5_000;
const POLL_MS = 100;

/** A decision as `decisions` holds it, the rule results named from the rule versions they ran. */
export interface StoredDecision {
  transaction: Record<string, unknown>;
  triggeredRulesCount: number;
  processed: ProcessedRule[];
}

/** Key order and absent versus null aside (the log's codec writes every field), whether two transactions are the same request. */
export function sameTransaction(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const canonical = (t: Record<string, unknown>) =>
    JSON.stringify(
      Object.keys(t)
        .filter((k) => t[k] !== null && t[k] !== undefined)
        .sort()
        .map((k) => [k, t[k]]),
    );
  return canonical(a) === canonical(b);
}

export interface TransactionReplays {
  /** Whether this is the id's first request in the window; reserves it (durably) when it is. */
  first(orgId: string, transactionId: string): Promise<boolean>;
  /** Gives back a reservation whose request failed before its transaction reached the log. */
  forget(orgId: string, transactionId: string): Promise<void>;
  /** The stored decision of a transaction seen before, waiting for the decisions consumer; undefined if none comes. */
  stored(orgId: string, transactionId: string): Promise<StoredDecision | undefined>;
}

/**
 * Transaction ids are reserved in the window store's event-id set (one hashed entry per id, in
 * time slots that expire; a scope of their own per organization, apart from counter events), so
 * the hot path pays one write and a replay survives a restart; the decision itself is read back
 * from `decisions`, where it is stored once.
 */
export function createTransactionReplays(platform: Platform): TransactionReplays {
  const scope = (orgId: string) => `${orgId}/transactions`;

  async function find(orgId: string, transactionId: string): Promise<StoredDecision | undefined> {
    const rs = await platform.analytics.query({
      query: 'SELECT transaction, triggered_rules_count, rule_results FROM decisions FINAL WHERE org_id = {org:String} AND transaction_id = {id:String} LIMIT 1',
      query_params: { org: orgId, id: transactionId },
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_named_tuples_as_objects: 0 },
    });
    const row = (await rs.json<{ transaction: string; triggered_rules_count: number; rule_results: unknown }>())[0];
    if (!row) return undefined;
    const results: RuleResult[] = ruleResults.parse(row.rule_results);
    const versions = await ruleVersions(orgId, results);
    return {
      transaction: JSON.parse(row.transaction) as Record<string, unknown>,
      triggeredRulesCount: Number(row.triggered_rules_count),
      processed: results.map((r) => storedProcessedRule(versions.get(`${r[0]}@${r[1]}`), r)),
    };
  }

  async function ruleVersions(orgId: string, results: RuleResult[]): Promise<Map<string, Rule>> {
    if (results.length === 0) return new Map();
    const rs = await platform.analytics.query({
      query: 'SELECT rule_id, version, body FROM rule_history FINAL WHERE org_id = {org:String} AND rule_id IN {ids:Array(String)}',
      query_params: { org: orgId, ids: [...new Set(results.map((r) => r[0]))] },
      format: 'JSONEachRow',
    });
    const rows = await rs.json<{ rule_id: string; version: string | number; body: string }>();
    return new Map(rows.map((r) => [`${r.rule_id}@${Number(r.version)}`, JSON.parse(r.body) as Rule]));
  }

  return {
    async first(orgId, transactionId) {
      const [state] = await platform.windows.reserveIds(scope(orgId), [transactionId], REPLAY_WINDOW_MS);
      return state === 'new';
    },
    forget: (orgId, transactionId) => platform.windows.unreserveIds(scope(orgId), [transactionId], REPLAY_WINDOW_MS),
    async stored(orgId, transactionId) {
      // Elapsed time, not the platform clock (which tests may hold still).
      const deadline = performance.now() + STORED_WAIT_MS;
      for (;;) {
        const found = await find(orgId, transactionId);
        if (found || performance.now() >= deadline) return found;
        await sleep(POLL_MS);
      }
    },
  };
}
