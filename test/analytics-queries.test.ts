import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalytics } from '../infra/analytics/index.js';
import type { Analytics } from '../infra/analytics/types.js';
import { serveAnalyticsInterface, type AnalyticsInterface } from '../infra/analytics/http-interface/index.js';
import { QUERIES, type QueryName } from '../domain/analytics/queries.js';
import { counterTableName } from '../domain/tenant-names.js';
import { FROM, seedAnalytics, TO } from './fixtures/analytics-seed.js';

/**
 * Every query of docs/analytics.md, run as an analyst runs it (through the HTTP interface, with
 * @clickhouse/client and query parameters) on a seeded day of two organizations.
 */
describe('documented analytics queries', () => {
  let writer: Analytics;
  let server: AnalyticsInterface;
  let analyst: ClickHouseClient;

  const run = async (name: QueryName, params: Record<string, unknown>) =>
    (await analyst.query({ query: QUERIES[name].sql, query_params: params, format: 'JSONEachRow' })).json<Record<string, unknown>>();
  const page = { limit: 100, offset: 0 };
  const day = { from: FROM, to: TO };

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-analytics-docs-'));
    writer = await createAnalytics({ username: 'default', password: '', database: 'weir', chdbPath: dir });
    await seedAnalytics(writer, 'weir');
    server = await serveAnalyticsInterface({
      chdbPath: dir, database: 'weir', host: '127.0.0.1', port: 0,
      limits: { maxExecutionSeconds: 10, maxResultRows: 10_000, maxResultBytes: 10_000_000 },
      users: [{ user: 'analyst', password: 'pw' }], log: pino({ level: 'silent' }),
    });
    analyst = createClient({ url: server.url, username: 'analyst', password: 'pw', log: { level: ClickHouseLogLevel.OFF } });
  });
  afterAll(async () => {
    await analyst?.close();
    await server?.close();
    await writer?.close();
  });

  it('docs/analytics.md shows every query exactly as it is run, with its parameters', async () => {
    const doc = await readFile(new URL('../docs/analytics.md', import.meta.url), 'utf8');
    for (const [name, q] of Object.entries(QUERIES)) {
      expect(doc, name).toContain(`\`\`\`sql\n${q.sql}\n\`\`\``);
      for (const [param, type] of Object.entries(q.params)) expect(q.sql, `${name} declares ${param}`).toContain(`{${param}:${type}}`);
    }
  });

  it('decisions per rule and outcome per hour', async () => {
    expect(await run('decisionsByRuleHourly', { org_id: 'org_a', ...day, ...page })).toEqual([
      { hour: '2030-03-01 10:00:00', rule_id: 'r_country', outcome: 'not_triggered', decisions: '1' },
      { hour: '2030-03-01 10:00:00', rule_id: 'r_country', outcome: 'triggered', decisions: '1' },
      { hour: '2030-03-01 10:00:00', rule_id: 'r_velocity', outcome: 'not_triggered', decisions: '1' },
      { hour: '2030-03-01 10:00:00', rule_id: 'r_velocity', outcome: 'triggered', decisions: '1' },
      { hour: '2030-03-01 11:00:00', rule_id: 'r_country', outcome: 'triggered', decisions: '1' },
      { hour: '2030-03-01 11:00:00', rule_id: 'r_velocity', outcome: 'triggered', decisions: '1' },
    ]);
    expect(await run('decisionsByRuleHourly', { org_id: 'org_b', ...day, ...page })).toEqual([
      { hour: '2030-03-01 10:00:00', rule_id: 'r_velocity', outcome: 'triggered', decisions: '1' },
    ]);
    expect(await run('decisionsByRuleHourly', { org_id: 'org_a', ...day, limit: 2, offset: 4 })).toHaveLength(2);
  });

  it('the rules that trigger most', async () => {
    expect(await run('topRules', { org_id: 'org_a', ...day, ...page })).toEqual([
      { rule_id: 'r_country', name: 'risky country', triggered: '2', evaluated: '3', trigger_rate: 0.6667 },
      { rule_id: 'r_velocity', name: 'velocity v2', triggered: '2', evaluated: '3', trigger_rate: 0.6667 },
    ]);
    expect(await run('topRules', { org_id: 'org_b', ...day, ...page })).toEqual([
      { rule_id: 'r_velocity', name: 'org b velocity', triggered: '1', evaluated: '1', trigger_rate: 1 },
    ]);
  });

  it("a transaction's full decision with its rule versions", async () => {
    const rows = await run('transactionDecision', { org_id: 'org_a', transaction_id: 'tx3' });
    expect(rows).toEqual([
      {
        transaction_id: 'tx3', entity_id: 'u1', decided_at: '2030-03-01 11:10:00.000', decision_score: 50, triggered_rules_count: 2,
        rule_id: 'r_country', rule_version: '1', rule_name: 'risky country', threshold: 10, triggered: 1, rule_score: 10,
        evaluation_names: ['country_listed'], evaluation_results: [1],
      },
      {
        transaction_id: 'tx3', entity_id: 'u1', decided_at: '2030-03-01 11:10:00.000', decision_score: 50, triggered_rules_count: 2,
        rule_id: 'r_velocity', rule_version: '2', rule_name: 'velocity v2', threshold: 40, triggered: 1, rule_score: 40,
        evaluation_names: ['many_tx', 'big_amount'], evaluation_results: [1, 1],
      },
    ]);
    const b = await run('transactionDecision', { org_id: 'org_b', transaction_id: 'tx1' });
    expect(b.map((r) => [r.rule_name, r.rule_score])).toEqual([['org b velocity', 5]]);
    expect(await run('transactionDecision', { org_id: 'org_b', transaction_id: 'tx3' })).toEqual([]);
  });

  it('screening hits per list and decision', async () => {
    expect(await run('screeningHits', { org_id: 'org_a', ...day, ...page })).toEqual([
      { list: '(no match)', decision: 'CLEAR', screenings: '1' },
      { list: 'OFAC SDN', decision: 'BLOCK', screenings: '2' },
      { list: 'UN', decision: 'REVIEW', screenings: '1' },
    ]);
    expect(await run('screeningHits', { org_id: 'org_b', ...day, ...page })).toEqual([{ list: 'EU', decision: 'BLOCK', screenings: '1' }]);
  });

  it("an entity's counters as last flushed", async () => {
    const [a] = await run('entityCounters', { table: counterTableName('org_a', 'entity_counters'), org_id: 'org_a', entity_id: 'u1' });
    expect(a).toEqual({ org_id: 'org_a', entity_id: 'u1', logins_1h: 5, amount_24h: 250, updated_at: '2030-03-01 11:00:00.000' });
    const b = await run('entityCounters', { table: counterTableName('org_b', 'entity_counters'), org_id: 'org_b', entity_id: 'u1' });
    expect(b).toEqual([{ org_id: 'org_b', entity_id: 'u1', secret_b: 42, updated_at: '2030-03-01 11:00:00.000' }]);
    expect(await run('entityCounters', { table: counterTableName('org_b', 'entity_counters'), org_id: 'org_a', entity_id: 'u1' })).toEqual([]);
  });

  it('counter configuration history', async () => {
    expect(await run('counterConfigHistory', { org_id: 'org_a', ...page })).toEqual([
      { version: '2', created_at: '2030-03-01 08:30:00.000', counters: '2', table_name: 'entity_counters' },
      { version: '1', created_at: '2030-03-01 08:00:00.000', counters: '1', table_name: 'entity_counters' },
    ]);
    expect(await run('counterConfigHistory', { org_id: 'org_b', ...page })).toHaveLength(1);
  });

  it('decisions per minute across organizations', async () => {
    expect(await run('decisionsPerMinute', day)).toEqual([
      { minute: '2030-03-01 10:05:00', decisions: '1', with_triggered_rules: '1' },
      { minute: '2030-03-01 10:15:00', decisions: '1', with_triggered_rules: '1' },
      { minute: '2030-03-01 10:40:00', decisions: '1', with_triggered_rules: '1' },
      { minute: '2030-03-01 11:10:00', decisions: '1', with_triggered_rules: '1' },
    ]);
  });
});
