import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { fetchOpenApi, undocumentedRoutes } from './support/openapi.js';
import { analyticsService } from '../services/analytics.js';
import { counterColumnsOf } from '../services/counters.js';
import { seedAnalytics } from './fixtures/analytics-seed.js';
import { discoveryPath, readDiscovery } from '../infra/analytics/http-interface/discovery.js';

/**
 * Tenant-scoped analytics reads on a running process (embedded defaults), over the seeded day of
 * test/fixtures/analytics-seed.ts, and the process's ClickHouse HTTP interface (ANALYTICS_PORT).
 */
const DATABASE = 'analytics_api';
const day = 'from=2030-03-01T00:00:00Z&to=2030-03-02T00:00:00Z';
let p: Awaited<ReturnType<typeof startTestProcess>>;

const get = async (path: string, org = 'org_a', key = `key_${org.slice(4)}`) => {
  const res = await fetch(`${p.url}${path}`, { headers: { 'x-org-id': org, 'x-api-key': key } });
  return { status: res.status, body: (await res.json()) as { data: { rows: Record<string, unknown>[]; next_offset: number | null }; message: string } };
};

beforeAll(async () => {
  p = await startTestProcess({
    services: [analyticsService({ counterColumns: counterColumnsOf })],
    env: { CLICKHOUSE_DATABASE: DATABASE, ANALYTICS_PORT: '0', ANALYTICS_USERS: 'analyst:pw' },
  });
  await seedAnalytics(p.platform.analytics, DATABASE);
});
afterAll(async () => {
  await p?.stop();
});

describe('GET /v1/analytics/{org_id}/...', () => {
  it('answers decisions per rule and outcome per hour, paged', async () => {
    const first = await get(`/v1/analytics/org_a/decisions/hourly?${day}&limit=4`);
    expect(first.status).toBe(200);
    expect(first.body.data.rows[0]).toEqual({ hour: '2030-03-01T10:00:00Z', rule_id: 'r_country', outcome: 'not_triggered', decisions: 1 });
    expect(first.body.data).toMatchObject({ limit: 4, offset: 0, next_offset: 4 });
    const last = await get(`/v1/analytics/org_a/decisions/hourly?${day}&limit=4&offset=4`);
    expect(last.body.data.rows).toEqual([
      { hour: '2030-03-01T11:00:00Z', rule_id: 'r_country', outcome: 'triggered', decisions: 1 },
      { hour: '2030-03-01T11:00:00Z', rule_id: 'r_velocity', outcome: 'triggered', decisions: 1 },
    ]);
    expect(last.body.data.next_offset).toBeNull();
  });

  it('answers the top rules, a transaction decision, screening hits and counter configurations', async () => {
    expect((await get(`/v1/analytics/org_a/rules/top?${day}`)).body.data.rows).toEqual([
      { rule_id: 'r_country', name: 'risky country', triggered: 2, evaluated: 3, trigger_rate: 0.6667 },
      { rule_id: 'r_velocity', name: 'velocity v2', triggered: 2, evaluated: 3, trigger_rate: 0.6667 },
    ]);
    const tx = (await get('/v1/analytics/org_a/transactions/tx1')).body.data.rows;
    expect(tx.map((r) => [r.rule_id, r.rule_version, r.rule_name, r.triggered, r.decided_at])).toEqual([
      ['r_country', 1, 'risky country', 0, '2030-03-01T10:05:00.000Z'],
      ['r_velocity', 1, 'velocity', 1, '2030-03-01T10:05:00.000Z'],
    ]);
    expect((await get(`/v1/analytics/org_a/screenings/hits?${day}`)).body.data.rows).toEqual([
      { list: '(no match)', decision: 'CLEAR', screenings: 1 },
      { list: 'OFAC SDN', decision: 'BLOCK', screenings: 2 },
      { list: 'UN', decision: 'REVIEW', screenings: 1 },
    ]);
    expect((await get('/v1/analytics/org_a/counters/configs?limit=1')).body.data).toEqual({
      rows: [{ version: 2, created_at: '2030-03-01T08:30:00.000Z', counters: 2, table_name: 'entity_counters' }],
      limit: 1, offset: 0, next_offset: 1,
    });
  });

  it("answers an entity's counters as last flushed, with only the organization's own counters", async () => {
    expect((await get('/v1/analytics/org_a/entities/u1/counters')).body.data).toEqual({
      entity_id: 'u1', counters: { logins_1h: 5, amount_24h: 250 }, updated_at: '2030-03-01T11:00:00.000Z',
    });
    expect((await get('/v1/analytics/org_b/entities/u1/counters', 'org_b')).body.data).toEqual({
      entity_id: 'u1', counters: { secret_b: 42 }, updated_at: '2030-03-01T11:00:00.000Z',
    });
    expect((await get('/v1/analytics/org_a/entities/nobody/counters')).body.data).toBeNull();
    expect((await get('/v1/analytics/org_a/entities/u1/counters', 'org_b')).status).toBe(403);
  });

  it("keeps every organization to its own rows: org_b sees only its own, and may not ask for org_a's", async () => {
    for (const path of [`decisions/hourly?${day}`, `rules/top?${day}`, `screenings/hits?${day}`, 'transactions/tx1', 'counters/configs']) {
      const denied = await get(`/v1/analytics/org_a/${path}`, 'org_b');
      expect(denied.status, path).toBe(403);
      const spoofed = await get(`/v1/analytics/org_a/${path}`, 'org_a', 'key_b');
      expect(spoofed.status, path).toBe(403);
    }
    expect((await get(`/v1/analytics/org_b/rules/top?${day}`, 'org_b')).body.data.rows).toEqual([
      { rule_id: 'r_velocity', name: 'org b velocity', triggered: 1, evaluated: 1, trigger_rate: 1 },
    ]);
    const tx1 = (await get('/v1/analytics/org_b/transactions/tx1', 'org_b')).body.data.rows;
    expect(tx1.map((r) => r.rule_name)).toEqual(['org b velocity']);
    expect((await get('/v1/analytics/org_b/transactions/tx3', 'org_b')).body.data.rows).toEqual([]);
    expect((await get(`/v1/analytics/org_b/screenings/hits?${day}`, 'org_b')).body.data.rows).toEqual([{ list: 'EU', decision: 'BLOCK', screenings: 1 }]);
    expect((await get('/v1/analytics/org_b/counters/configs', 'org_b')).body.data.rows).toHaveLength(1);
  });

  it.each([
    ['from=yesterday', /from: must be an RFC 3339 timestamp/],
    ['from=2030-03-02T00:00:00Z&to=2030-03-01T00:00:00Z', /from: must be before to/],
    ['from=2030-01-01T00:00:00Z&to=2030-03-01T00:00:00Z', /from: must be at most 31 days before to/],
    ['limit=0', /limit: /],
    ['limit=5000', /limit: /],
    ['offset=-1', /offset: /],
    ['org_id=org_b', /org_id/],
  ])('refuses ?%s with a 400 naming the parameter', async (qs, message) => {
    const res = await get(`/v1/analytics/org_a/rules/top?${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it('needs the key and the organization header', async () => {
    expect((await fetch(`${p.url}/v1/analytics/org_a/rules/top`)).status).toBe(401);
    expect((await fetch(`${p.url}/v1/analytics/org_a/rules/top`, { headers: { 'x-api-key': 'key_a' } })).status).toBe(401);
  });

  it('documents every route in OpenAPI 3.0, served without credentials', async () => {
    const { doc } = await fetchOpenApi(`${p.url}/v1/analytics/openapi.json`);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/v1/analytics/openapi.json',
      '/v1/analytics/{org_id}/counters/configs',
      '/v1/analytics/{org_id}/decisions/hourly',
      '/v1/analytics/{org_id}/entities/{entity_id}/counters',
      '/v1/analytics/{org_id}/rules/top',
      '/v1/analytics/{org_id}/screenings/hits',
      '/v1/analytics/{org_id}/transactions/{transaction_id}',
    ]);
    expect(await undocumentedRoutes(p.url, doc, { org_id: 'org_a', transaction_id: 'tx1', entity_id: 'u1' }, { 'x-org-id': 'org_a', 'x-api-key': 'key_a' })).toEqual([]);
  });
});

describe('ANALYTICS_PORT on a running process', () => {
  it('serves the process chDB to @clickhouse/client, read-only', async () => {
    expect(p.analyticsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ch = createClient({ url: p.analyticsUrl, username: 'analyst', password: 'pw', log: { level: ClickHouseLogLevel.OFF } });
    const rows = await (await ch.query({ query: 'SELECT org_id, count() AS n FROM decisions FINAL GROUP BY org_id ORDER BY org_id', format: 'JSONEachRow' })).json();
    expect(rows).toEqual([{ org_id: 'org_a', n: '4' }, { org_id: 'org_b', n: '1' }]);
    await expect(ch.command({ query: 'DROP TABLE decisions' })).rejects.toMatchObject({ type: 'READONLY' });
    await ch.close();
  });

  it('tells npm run sql where it listens and as whom, in an owner-only file of DATA_DIR', async () => {
    expect(readDiscovery(p.dataDir)).toEqual({ url: p.analyticsUrl, user: 'analyst', password: 'pw' });
    expect((await stat(discoveryPath(p.dataDir))).mode & 0o777).toBe(0o600);
  });
});
