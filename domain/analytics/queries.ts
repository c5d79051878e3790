import { quoteIdent } from '../rules/sql.js';

/**
 * The questions an operator or an organization asks of the analytics tables first, as ClickHouse
 * SQL with every value a query parameter `{name:Type}`. docs/analytics.md shows these texts, the
 * tenant API (`GET /v1/analytics/...`) runs them, and a test runs each on seeded data. Queries of an
 * organization are bound to it by `{org_id:String}` on the leading column of the table's order
 * key, so the read touches that organization's rows only.
 */
export interface DocumentedQuery {
  /** The question it answers. */
  title: string;
  sql: string;
  /** Parameter names and their ClickHouse types. */
  params: Record<string, string>;
}

const RANGE = { from: "DateTime64(3, 'UTC')", to: "DateTime64(3, 'UTC')" };
const PAGE = { limit: 'UInt32', offset: 'UInt32' };

export const QUERIES = {
  decisionsByRuleHourly: {
    title: 'Decisions per rule and outcome, per hour',
    params: { org_id: 'String', ...RANGE, ...PAGE },
    sql: `SELECT
  toStartOfHour(decided_at) AS hour,
  r.rule_id AS rule_id,
  if(r.triggered = 1, 'triggered', 'not_triggered') AS outcome,
  count() AS decisions
FROM decisions FINAL
ARRAY JOIN rule_results AS r
WHERE org_id = {org_id:String}
  AND decided_at >= {from:DateTime64(3, 'UTC')} AND decided_at < {to:DateTime64(3, 'UTC')}
GROUP BY hour, rule_id, outcome
ORDER BY hour, rule_id, outcome
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
  },
  topRules: {
    title: 'The rules that trigger most, with their current names',
    params: { org_id: 'String', ...RANGE, ...PAGE },
    sql: `SELECT
  r.rule_id AS rule_id,
  any(h.name) AS name,
  countIf(r.triggered = 1) AS triggered,
  count() AS evaluated,
  round(triggered / evaluated, 4) AS trigger_rate
FROM decisions FINAL
ARRAY JOIN rule_results AS r
LEFT JOIN (
  SELECT rule_id, argMax(JSONExtractString(body, 'name'), version) AS name
  FROM rule_history
  WHERE org_id = {org_id:String}
  GROUP BY rule_id
) AS h ON h.rule_id = r.rule_id
WHERE decisions.org_id = {org_id:String}
  AND decided_at >= {from:DateTime64(3, 'UTC')} AND decided_at < {to:DateTime64(3, 'UTC')}
GROUP BY rule_id
ORDER BY triggered DESC, rule_id
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
  },
  transactionDecision: {
    title: "A transaction's full decision, each rule at the version that decided it",
    params: { org_id: 'String', transaction_id: 'String' },
    sql: `SELECT
  d.transaction_id AS transaction_id,
  d.entity_id AS entity_id,
  d.decided_at AS decided_at,
  d.score AS decision_score,
  d.triggered_rules_count AS triggered_rules_count,
  r.rule_id AS rule_id,
  r.rule_version AS rule_version,
  JSONExtractString(h.body, 'name') AS rule_name,
  JSONExtractFloat(h.body, 'threshold') AS threshold,
  r.triggered AS triggered,
  r.score AS rule_score,
  arrayMap(e -> JSONExtractString(e, 'name'), JSONExtractArrayRaw(h.body, 'evaluations')) AS evaluation_names,
  r.evaluations AS evaluation_results
FROM (
  SELECT * FROM decisions FINAL
  WHERE org_id = {org_id:String} AND transaction_id = {transaction_id:String}
) AS d
ARRAY JOIN d.rule_results AS r
LEFT JOIN (
  SELECT rule_id, version, body FROM rule_history FINAL WHERE org_id = {org_id:String}
) AS h ON h.rule_id = r.rule_id AND h.version = r.rule_version
ORDER BY rule_id`,
  },
  screeningHits: {
    title: 'Screenings per list hit and decision',
    params: { org_id: 'String', ...RANGE, ...PAGE },
    sql: `SELECT
  multiIf(
    JSONExtractString(payload, 'response', 'match', 'source') != '',
    JSONExtractString(payload, 'response', 'match', 'source'),
    JSONExtractString(payload, 'response', 'relationship_match', 'related_to', 'source') != '',
    JSONExtractString(payload, 'response', 'relationship_match', 'related_to', 'source'),
    '(no match)'
  ) AS list,
  decision,
  count() AS screenings
FROM screenings FINAL
WHERE org_id = {org_id:String}
  AND created_at >= {from:DateTime64(3, 'UTC')} AND created_at < {to:DateTime64(3, 'UTC')}
GROUP BY list, decision
ORDER BY list, decision
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
  },
  entityCounters: {
    title: "An entity's counters as last flushed",
    params: { table: 'Identifier', org_id: 'String', entity_id: 'String' },
    sql: `SELECT *
FROM {table:Identifier} FINAL
WHERE org_id = {org_id:String} AND entity_id = {entity_id:String}`,
  },
  counterConfigHistory: {
    title: "An organization's counter configurations, newest first",
    params: { org_id: 'String', ...PAGE },
    sql: `SELECT
  version,
  created_at,
  length(JSONExtractArrayRaw(config, 'counters')) AS counters,
  JSONExtractString(config, 'table_name') AS table_name
FROM counter_configs
WHERE org_id = {org_id:String}
ORDER BY version DESC, created_at ASC, written_by ASC
LIMIT 1 BY version
LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
  },
  decisionsPerMinute: {
    title: 'Decisions per minute across organizations (operators)',
    params: RANGE,
    sql: `SELECT
  toStartOfMinute(decided_at) AS minute,
  count() AS decisions,
  countIf(triggered_rules_count > 0) AS with_triggered_rules
FROM decisions FINAL
WHERE decided_at >= {from:DateTime64(3, 'UTC')} AND decided_at < {to:DateTime64(3, 'UTC')}
GROUP BY minute
ORDER BY minute`,
  },
} satisfies Record<string, DocumentedQuery>;

export type QueryName = keyof typeof QUERIES;

/**
 * `entityCounters` for an organization that is not an operator: only its own counter columns, as
 * other organizations' counters may be columns of the same table. Names come from its validated
 * configuration and are quoted all the same.
 */
export function orgEntityCountersSql(table: string, columns: string[]): string {
  return `SELECT entity_id, updated_at${columns.map((c) => `, ${quoteIdent(c)}`).join('')}
FROM ${quoteIdent(table)} FINAL
WHERE org_id = {org_id:String} AND entity_id = {entity_id:String}`;
}
