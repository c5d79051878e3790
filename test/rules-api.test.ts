import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { rulesService } from '../services/rules.js';
import { countersService, createCounterReader } from '../services/counters.js';
import { client, eventually, rule, tx, type Answer } from './fixtures/rules-client.js';
import { dlqTopic } from '../infra/bus/types.js';
import { PAYMENTS_TABLE } from './fixtures/rules-schema.js';

type Proc = Awaited<ReturnType<typeof startTestProcess>>;
let p: Proc;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  p = await startTestProcess({ services: [countersService, rulesService({ counters: createCounterReader })] });
  api = client(p.url, 'key_a');
});
afterAll(async () => {
  await p?.stop();
});

/** Document 1's error body, on every 4xx of the rule engine. */
function expectError(a: Answer, status: number, message?: string | RegExp) {
  expect(a.status).toBe(status);
  expect(a.body).toMatchObject({ statusCode: status, code: status, message: expect.any(String), timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) });
  if (message) expect(a.body.message).toMatch(message);
}

async function query<T>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const rs = await p.platform.analytics.query({ query: sql, query_params: params, format: 'JSONEachRow' });
  return rs.json<T>();
}

describe('authentication', () => {
  it('401 without a key or with an unknown key, 403 for another organization', async () => {
    expectError(await client(p.url, null).get('/rules/org_a'), 401);
    expectError(await client(p.url, 'nope').get('/rules/org_a'), 401);
    expectError(await api.get('/rules/org_b'), 403);
    expectError(await api.post('/transaction/org_b', tx()), 403);
  });

  it('answers unknown rule-engine paths with the rule-engine error body', async () => {
    expectError(await api.get('/tables/org_a/x/y/z'), 404);
  });
});

describe('custom fields', () => {
  it('201 without a body, then listed and readable; 409 when it exists', async () => {
    const created = await api.post('/fields/org_a', { name: 'channel', fieldType: 'string' });
    expect(created).toEqual({ status: 201, body: null });
    expectError(await api.post('/fields/org_a', { name: 'channel', fieldType: 'number' }), 409, /already exists/);
    expect(await api.get('/fields/org_a/channel')).toEqual({ status: 200, body: { success: true, data: { name: 'channel', fieldType: 'string', orgId: 'org_a' } } });
    const list = await api.get('/fields/org_a');
    expect(list.body.data).toContainEqual({ name: 'channel', fieldType: 'string', orgId: 'org_a' });
    expect((await client(p.url, 'key_b').get('/fields/org_b')).body.data).toEqual([]);
  });

  it('400 for a bad name, type or a name of the transaction; 404 for an unknown field', async () => {
    expectError(await api.post('/fields/org_a', { name: 'Bad-Name', fieldType: 'string' }), 400, /name/);
    expectError(await api.post('/fields/org_a', { name: 'ok_name', fieldType: 'money' }), 400, /fieldType/);
    expectError(await api.post('/fields/org_a', { name: 'amount', fieldType: 'number' }), 400, /field of the transaction/);
    expectError(await api.post('/fields/org_a', { name: 'like', fieldType: 'number' }), 400, /keyword/);
    expectError(await api.get('/fields/org_a/nope'), 404);
  });
});

describe('rules', () => {
  it('create 201, read, list, update, status, delete; 404 for unknown ids', async () => {
    const created = await api.post('/rules/org_a', rule());
    expect(created.status).toBe(201);
    const { ruleId } = created.body.data;
    expect(created.body).toEqual({ success: true, data: { ruleId: expect.any(String) } });

    const read = await api.get(`/rules/org_a/${ruleId}`);
    expect(read.body.data).toEqual({ id: ruleId, ...rule(), useAi: false, active: true, evaluations: [{ name: 'large', expression: 'amount > 100', weight: 1 }] });
    expect((await api.get('/rules/org_a')).body.data.map((r: { id: string }) => r.id)).toContain(ruleId);

    const updated = await api.put(`/rules/org_a/${ruleId}`, rule({ threshold: 2, useAi: true }));
    expect(updated.status).toBe(200);
    expect((await api.get(`/rules/org_a/${ruleId}`)).body.data).toMatchObject({ threshold: 2, useAi: true });

    expect(await api.patch(`/rules/org_a/${ruleId}/status`, { active: false })).toEqual({ status: 200, body: { success: true, data: { ruleId, active: false } } });
    expect((await api.get(`/rules/org_a/${ruleId}`)).body.data.active).toBe(false);

    expect((await api.delete(`/rules/org_a/${ruleId}`)).status).toBe(200);
    expectError(await api.get(`/rules/org_a/${ruleId}`), 404);
    expectError(await api.delete(`/rules/org_a/${ruleId}`), 404);
    expectError(await api.put(`/rules/org_a/${ruleId}`, rule()), 404);
    expectError(await api.patch(`/rules/org_a/${ruleId}/status`, { active: true }), 404);
    expectError(await api.post(`/rules/org_a/${ruleId}/sql-preview`, {}), 404);
    expect((await client(p.url, 'key_b').get(`/rules/org_b/${ruleId}`)).status).toBe(404);
  });

  it('400 naming the evaluation and position for a parse error or unknown identifier', async () => {
    const bad = (expression: string) => api.post('/rules/org_a', rule({ evaluations: [{ name: 'ok', expression: 'amount > 1' }, { name: 'broken', expression }] }));
    expectError(await bad('amount >'), 400, /evaluation 'broken': line 1, column 9: unexpected end of expression/);
    expectError(await bad('amount > 1 AND amout < 5'), 400, /evaluation 'broken': line 1, column 16: unknown identifier 'amout'/);
    expectError(await bad("amount > 'x'"), 400, /evaluation 'broken': line 1, column 10: '>' compares number with string/);
    expectError(await bad(`${'-'.repeat(9_990)}1 > 0`), 400, /evaluation 'broken': line 1, column 129: the expression is nested too deeply \(more than 128 levels\)/);
    expectError(await bad(`device_fingerprint LIKE '${'%a'.repeat(200)}'`), 400, /evaluation 'broken': line 1, column 25: a LIKE pattern may have at most 256 characters/);
    expectError(await api.post('/rules/org_a', rule({ threshold: 'high' })), 400, /threshold/);
    expectError(await api.post('/rules/org_a', rule({ threshold: 1e10 })), 400, /threshold: must be at most 1e9/);
    expectError(await api.post('/rules/org_a', rule({ evaluations: [{ name: 'heavy', expression: 'amount > 1', weight: 1e308 }] })), 400, /evaluations\[0\]\.weight: must be at most 1e9/);
    expectError(await api.post('/rules/org_a', rule({ evaluations: [] })), 400, /evaluations/);
    expectError(await api.patch('/rules/org_a/whatever/status', {}), 404);
  });
});

describe('lists', () => {
  /** Walks a list page by page with `limit`, checking the header and the body carry the same cursor. */
  async function walk(path: string, limit: number, as: ReturnType<typeof client>): Promise<unknown[]> {
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const a: Answer = await as.get(`${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(a.status).toBe(200);
      expect(a.body.data.length).toBeLessThanOrEqual(limit);
      cursor = a.body.next_cursor;
      expect(a.headers?.get('x-next-cursor') ?? null).toBe(cursor);
      seen.push(...a.body.data);
    } while (cursor);
    return seen;
  }

  it('rules, fields and tables are paged by limit and cursor, each item once', async () => {
    const b = client(p.url, 'key_b');
    const ruleIds = await Promise.all([1, 2, 3].map(async () => (await b.post('/rules/org_b', rule())).body.data.ruleId as string));
    for (const name of ['pg_c', 'pg_a', 'pg_b']) expect((await b.post('/fields/org_b', { name, fieldType: 'string' })).status).toBe(201);
    for (const tableName of ['pg_t2', 'pg_t1', 'pg_t3']) expect((await b.post('/tables/org_b', { tableName, columns: [{ name: 'v', type: 'number' }], optimization: { status: 'disabled' } })).status).toBe(201);
    try {
      expect((await walk('/rules/org_b', 2, b)).map((r) => (r as { id: string }).id)).toEqual([...ruleIds].sort());
      expect((await walk('/fields/org_b', 2, b)).map((f) => (f as { name: string }).name)).toEqual(['pg_a', 'pg_b', 'pg_c']);
      expect(await walk('/tables/org_b', 1, b)).toEqual(['pg_t1', 'pg_t2', 'pg_t3']);
      const first = await b.get('/rules/org_b?limit=1');
      expect(first.body.data).toHaveLength(1);
      expect((await b.get('/rules/org_b')).body.next_cursor).toBeNull();
      expectError(await b.get('/rules/org_b?limit=0'), 400, /limit must be at least 1/);
      expectError(await b.get('/tables/org_b?limit=501'), 400, /limit must be at most 500/);
      expectError(await b.get('/fields/org_b?cursor=%25%25'), 400, /cursor must be the X-Next-Cursor/);
    } finally {
      for (const id of ruleIds) await b.delete(`/rules/org_b/${id}`);
      for (const t of ['pg_t1', 'pg_t2', 'pg_t3']) await b.delete(`/tables/org_b/${t}`);
    }
  });
});

describe('custom tables', () => {
  const accounts = {
    tableName: 'accounts',
    columns: [
      { name: 'tier', type: 'string' },
      { name: 'limit_amount', type: 'number' },
      { name: 'frozen', type: 'boolean', nullable: false },
      { name: 'opened_at', type: 'datetime' },
    ],
    optimization: { status: 'disabled' },
  };

  it('create 201 with the schema, 409 twice, listed, schema readable', async () => {
    const created = await api.post('/tables/org_a', accounts);
    expect(created.status).toBe(201);
    expectError(await api.post('/tables/org_a', accounts), 409);
    expect((await api.get('/tables/org_a')).body.data).toContain('accounts');
    expect((await api.get('/tables/org_a/accounts/schema')).body).toEqual({
      success: true,
      data: {
        tableName: 'accounts',
        tableType: 'lookup',
        idColumn: 'id',
        columns: [{ name: 'id', type: 'string', nullable: false }, ...accounts.columns.map((c) => ({ nullable: true, ...c }))],
        optimization: { status: 'disabled' },
      },
    });
    expectError(await api.get('/tables/org_a/nope/schema'), 404);
  });

  it('an event_stream with windowState over columns left nullable: created, its key columns non-null', async () => {
    const stream = {
      tableName: 'card_events',
      tableType: 'event_stream',
      columns: [
        { name: 'card', type: 'string' },
        { name: 'at', type: 'datetime' },
        { name: 'value', type: 'number' },
      ],
      optimization: { status: 'enabled', windowState: { entityColumn: 'card', timestampColumn: 'at', aggregates: [{ name: 'total', function: 'sum', column: 'value', window: { amount: 1, unit: 'hours' } }] } },
    };
    const created = await api.post('/tables/org_a', stream);
    expect(created.status).toBe(201);
    expect(created.body.data.columns).toEqual([
      { name: 'id', type: 'string', nullable: false },
      { name: 'card', type: 'string', nullable: false },
      { name: 'at', type: 'datetime', nullable: false },
      { name: 'value', type: 'number', nullable: true },
    ]);
    expectError(await api.put('/tables/org_a/card_events/data', [{ id: 'e1', at: '2024-03-01T10:00:00Z', value: 1 }]), 400, /row 0: column 'card' is required/);
    expectError(await api.put('/tables/org_a/card_events/data', [{ id: 'e1', card: 'c1', value: 1 }]), 400, /row 0: column 'at' is required/);
    expect((await api.put('/tables/org_a/card_events/data', [{ id: 'e1', card: 'c1', at: '2024-03-01T10:00:00Z' }])).body.data).toMatchObject({ inserted_count: 1 });
    expect((await api.delete('/tables/org_a/card_events')).status).toBe(200);
  });

  it('400 for invalid definitions', async () => {
    expectError(await api.post('/tables/org_a', { ...accounts, tableName: 't2', optimization: undefined }), 400, /optimization/);
    expectError(await api.post('/tables/org_a', { ...accounts, tableName: 't2', optimization: { status: 'enabled', windowState: { entityColumn: 'tier', timestampColumn: 'opened_at', aggregates: [{ name: 'n', function: 'count', window: { amount: 1, unit: 'hours' } }] } } }), 400, /only valid for event_stream/);
    expectError(await api.post('/tables/org_a', { ...accounts, tableName: 't2', columns: [{ name: 'x', type: 'money' }] }), 400, /type/);
    expectError(await api.post('/tables/org_a', { ...accounts, tableName: 'entity_counters' }), 400, /counter table/);
    expectError(await api.post('/tables/org_a', { ...accounts, tableName: 'bad name' }), 400, /tableName/);
  });

  it('bulk insert skips existing and repeated ids with one warning each; a bad row rejects the request', async () => {
    const first = await api.put('/tables/org_a/accounts/data', [
      { id: 'acct-1', tier: 'gold', limit_amount: 100, frozen: false, opened_at: '2020-01-01T00:00:00Z' },
      { id: 'acct-2', tier: 'silver', frozen: true },
    ]);
    expect(first.body).toEqual({ success: true, data: { inserted_count: 2, skipped_count: 0, total_count: 2, warnings: [] } });
    const second = await api.put('/tables/org_a/accounts/data', [
      { id: 'acct-3', tier: 'bronze', frozen: false },
      { id: 'acct-1', tier: 'platinum', frozen: false },
      { id: 'acct-3', tier: 'again', frozen: false },
    ]);
    expect(second.body.data).toEqual({
      inserted_count: 1,
      skipped_count: 2,
      total_count: 3,
      warnings: [
        { row_index: 1, id_value: 'acct-1', id_column: 'id', message: expect.stringContaining('already exists') },
        { row_index: 2, id_value: 'acct-3', id_column: 'id', message: expect.stringContaining('repeats row 0') },
      ],
    });
    expectError(await api.put('/tables/org_a/accounts/data', [{ id: 'acct-9', frozen: false }, { id: 'acct-10', frozen: 'no' }]), 400, /row 1: column 'frozen' must be a boolean/);
    expectError(await api.put('/tables/org_a/accounts/data', [{ id: 'acct-9', frozen: false, colour: 'red' }]), 400, /unknown column 'colour'/);
    expectError(await api.put('/tables/org_a/accounts/data', [{ id: 'acct-9', frozen: false, limit_amount: -1e300 }]), 400, /row 0: column 'limit_amount' must be at most 1e15 in magnitude/);
    expectError(await api.put('/tables/org_a/accounts/data', { id: 'x' }), 400, /array/);
    expectError(await api.put('/tables/org_a/nope/data', []), 404);
    const ids = (await api.get('/tables/org_a/accounts/data')).body.data.rows.map((r: { id: string }) => r.id);
    expect(ids).toEqual(['acct-1', 'acct-2', 'acct-3']);
  });

  it('pages within bounds: default 100, max 500, 400 outside', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => ({ id: `page-${i}`, frozen: false }));
    await api.put('/tables/org_a/accounts/data', rows);
    const page = await api.get('/tables/org_a/accounts/data?limit=2&offset=4');
    expect(page.body.data).toMatchObject({ total: 10, limit: 2, offset: 4 });
    expect(page.body.data.rows.map((r: { id: string }) => r.id)).toEqual(['page-1', 'page-2']);
    expect((await api.get('/tables/org_a/accounts/data')).body.data).toMatchObject({ limit: 100, offset: 0, total: 10 });
    expect((await api.get('/tables/org_a/accounts/data?limit=500')).status).toBe(200);
    expectError(await api.get('/tables/org_a/accounts/data?limit=501'), 400, /limit must be at most 500/);
    expectError(await api.get('/tables/org_a/accounts/data?limit=0'), 400, /limit must be at least 1/);
    expectError(await api.get('/tables/org_a/accounts/data?offset=-1'), 400, /offset must be at least 0/);
    expectError(await api.get('/tables/org_a/accounts/data?limit=abc'), 400, /limit/);
    expectError(await api.get('/tables/org_a/nope/data'), 404);
  });

  it('PATCH changes a row (200), 404 for a missing row, 400 for a bad change', async () => {
    const patched = await api.patch('/tables/org_a/accounts/data/acct-2', { tier: 'gold', opened_at: '2021-06-01T10:00:00+02:00' });
    expect(patched.body).toEqual({ success: true, data: { id: 'acct-2', tier: 'gold', limit_amount: null, frozen: true, opened_at: '2021-06-01T08:00:00.000Z' } });
    const rows = (await api.get('/tables/org_a/accounts/data?limit=3')).body.data.rows;
    expect(rows[1]).toEqual(patched.body.data);
    expectError(await api.patch('/tables/org_a/accounts/data/nobody', { tier: 'x' }), 404);
    expectError(await api.patch('/tables/org_a/accounts/data/acct-2', { frozen: 'yes' }), 400, /frozen/);
    expectError(await api.patch('/tables/org_a/accounts/data/acct-2', { id: 'other' }), 400, /cannot be changed/);
  });

  it('DELETE 200 then 404; the name is free again', async () => {
    const t = { tableName: 'scratch', columns: [{ name: 'v', type: 'number' }], optimization: { status: 'disabled' } };
    expect((await api.post('/tables/org_a', t)).status).toBe(201);
    await api.put('/tables/org_a/scratch/data', [{ id: 'a', v: 1 }]);
    expect((await api.delete('/tables/org_a/scratch')).status).toBe(200);
    expectError(await api.delete('/tables/org_a/scratch'), 404);
    expect((await api.post('/tables/org_a', t)).status).toBe(201);
    expect((await api.get('/tables/org_a/scratch/data')).body.data.total).toBe(0);
  });
});

describe('transactions', () => {
  it('400 with the error body for an invalid time, date, currency, type or unknown key', async () => {
    expectError(await api.post('/transaction/org_a', tx({ transaction_time: '25:00:00' })), 400, /transaction_time must be a valid time/);
    expectError(await api.post('/transaction/org_a', tx({ transaction_time: '12:60:00' })), 400, /transaction_time must be a valid time/);
    expectError(await api.post('/transaction/org_a', tx({ transaction_date: '2023-02-29' })), 400, /transaction_date must be a real date/);
    expectError(await api.post('/transaction/org_a', tx({ currency: 'ngn' })), 400, /currency/);
    expectError(await api.post('/transaction/org_a', tx({ amount: '12' })), 400, /amount/);
    expectError(await api.post('/transaction/org_a', tx({ amount: 1e300 })), 400, /amount: must be at most 1e15/);
    expectError(await api.post('/transaction/org_a', tx({ colour: 'red' })), 400, /colour/);
    expectError(await api.post('/transaction/org_a', tx({ channel: 12 })), 400, /channel/);
    const { entity_id: _e, ...missing } = tx();
    expectError(await api.post('/transaction/org_a', missing), 400, /entity_id/);
    expectError(await api.post('/transaction/org_a?ruleIds=nope', tx()), 400, /unknown rule id: nope/);
  });

  it('evaluates active rules with custom fields, lookups, window aggregates and counters; answers the processedRules', async () => {
    // Counters: a real counters configuration and an event for the entity.
    const counters = client(p.url, 'key_a', { 'x-org-id': 'org_a' });
    const config = await counters.put('/v1/counters/org_a', { counters: [{ name: 'logins_1h', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' } }] });
    expect(config.status).toBe(200);
    expect((await counters.post('/v1/events/org_a', { event_id: 'ev1', entity_id: 'acct-1', event_type: 'login', occurred_at: new Date().toISOString() })).status).toBe(202);

    expect((await api.post('/tables/org_a', PAYMENTS_TABLE)).status).toBe(201);
    const ago = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
    const put = await api.put('/tables/org_a/payments/data', [
      { id: 'p1', account: 'acct-1', value: 40, at: ago(5) },
      { id: 'p2', account: 'acct-1', value: 60, at: ago(30) },
      { id: 'p3', account: 'acct-1', value: 500, at: ago(60 * 30) },
      { id: 'p4', account: 'acct-2', value: 1, at: ago(1) },
    ]);
    expect(put.body.data.inserted_count).toBe(4);
    // A repeated id is skipped and does not count again.
    expect((await api.put('/tables/org_a/payments/data', [{ id: 'p1', account: 'acct-1', value: 40, at: ago(5) }])).body.data.skipped_count).toBe(1);
    expectError(await api.patch('/tables/org_a/payments/data/p1', { value: 1 }), 400, /append-only/);

    const created = await api.post('/rules/org_a', {
      name: 'velocity',
      description: 'busy gold account',
      threshold: 3,
      evaluations: [
        { name: 'gold', expression: "accounts.tier = 'gold' AND amount > accounts.limit_amount", weight: 1 },
        { name: 'busy', expression: 'payments.count_1h >= 2 AND payments.value_1d = 100', weight: 1 },
        { name: 'logged_in', expression: 'entity_counters.logins_1h >= 1', weight: 1 },
        { name: 'web', expression: "channel LIKE 'web%'", weight: 0.5 },
      ],
      actions: [{ type: 'block', description: 'hold the payment' }],
    });
    expect(created.status).toBe(201);
    const ruleId = created.body.data.ruleId;

    const answer = await api.post('/transaction/org_a', tx({ channel: 'mobile' }));
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    expect(answer.body.data.trace).toBeUndefined();
    const result = answer.body.data.processedRules.find((r: { ruleId: string }) => r.ruleId === ruleId);
    expect(result).toEqual({
      ruleId,
      name: 'velocity',
      triggered: true,
      score: 3,
      threshold: 3,
      actions: [{ type: 'block', description: 'hold the payment' }],
      evaluations: [
        { name: 'gold', result: true },
        { name: 'busy', result: true },
        { name: 'logged_in', result: true },
        { name: 'web', result: false },
      ],
    });
    expect(answer.body.data.triggeredRulesCount).toBeGreaterThanOrEqual(1);
    expect(answer.body.data.message).toMatch(/rules? processed, \d+ triggered/);

    // Another entity: no lookup row, no aggregates, no counter.
    const other = await api.post(`/transaction/org_a?ruleIds=${ruleId}`, tx({ entity_id: 'acct-404' }));
    expect(other.body.data.processedRules).toEqual([expect.objectContaining({ ruleId, triggered: false, score: 0, actions: [] })]);
    expect(other.body.data.triggeredRulesCount).toBe(0);

    // ruleIds evaluates exactly the listed rules, inactive ones too.
    await api.patch(`/rules/org_a/${ruleId}/status`, { active: false });
    const listed = await api.post(`/transaction/org_a?ruleIds=${ruleId}`, tx());
    expect(listed.body.data.processedRules.map((r: { ruleId: string }) => r.ruleId)).toEqual([ruleId]);
    const active = await api.post('/transaction/org_a', tx());
    expect(active.body.data.processedRules.map((r: { ruleId: string }) => r.ruleId)).not.toContain(ruleId);

    // sql-preview: the SQL runs on the ClickHouse engine and reaches the same verdicts.
    const preview = await api.post(`/rules/org_a/${ruleId}/sql-preview`, { transaction: tx({ channel: 'web-shop' }) });
    expect(preview.status).toBe(200);
    expect(preview.body.data.map((i: { name: string }) => i.name)).toEqual(['gold', 'busy', 'logged_in', 'web']);
    for (const item of preview.body.data) {
      expect(item.sql).toContain('SELECT');
      expect(item.sql).not.toContain('web-shop');
    }
    const web = preview.body.data[3];
    const [row] = await query<{ result: number | boolean }>(web.sql, web.params);
    expect([true, 1]).toContain(row!.result);
    const gold = preview.body.data[0];
    const [goldRow] = await query<{ result: number | boolean }>(gold.sql, gold.params);
    expect([true, 1]).toContain(goldRow!.result);
    expectError(await api.post(`/rules/org_a/${ruleId}/sql-preview`, { transaction: tx({ transaction_time: '24:00:00' }) }), 400, /transaction_time/);
    expect((await api.post(`/rules/org_a/${ruleId}/sql-preview`, {})).status).toBe(200);
  });

  it('writes every decision to ClickHouse decisions, once per transaction id, with each rule result', async () => {
    const created = await api.post('/rules/org_a', rule({ name: 'over 100', evaluations: [{ name: 'large', expression: 'amount > 100' }, { name: 'usd', expression: "currency = 'USD'" }] }));
    expect(created.status).toBe(201);
    const t = tx({ transaction_id: 'decided-1' });
    expect((await api.post('/transaction/org_a', t)).status).toBe(200);
    type Result = { rule_id: string; rule_version: number | string; triggered: number; score: number; evaluations: number[] };
    const rows = await eventually(async () => {
      const r = await query<{ transaction_id: string; entity_id: string; rule_results: Result[] }>('SELECT * FROM decisions FINAL WHERE org_id = {o:String} AND transaction_id = {t:String}', { o: 'org_a', t: 'decided-1' });
      return r.length > 0 ? r : undefined;
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.entity_id).toBe('acct-1');
    const mine = rows[0]!.rule_results.find((r) => r.rule_id === created.body.data.ruleId);
    expect(mine).toMatchObject({ triggered: 1, score: 1, evaluations: [1, 0] });
    // The version names the rule's definition as it was: its name, threshold and actions are in rule_history.
    const [history] = await query<{ body: string }>('SELECT body FROM rule_history WHERE org_id = {o:String} AND rule_id = {r:String} AND version = {v:UInt64}', { o: 'org_a', r: mine!.rule_id, v: String(mine!.rule_version) });
    expect(JSON.parse(history!.body)).toMatchObject({ name: 'over 100', threshold: 1 });
    // The analysts' query of domain/rules/README.md, without its date filter.
    const perRule = await query<{ rule_id: string; name: string; triggered: number | string }>(
      `SELECT r.rule_id AS rule_id, JSONExtractString(h.body, 'name') AS name, countIf(r.triggered = 1) AS triggered
       FROM decisions FINAL ARRAY JOIN rule_results AS r
       LEFT JOIN rule_history AS h ON h.org_id = decisions.org_id AND h.rule_id = r.rule_id AND h.version = r.rule_version
       WHERE decisions.org_id = 'org_a'
       GROUP BY r.rule_id, name ORDER BY triggered DESC`,
    );
    expect(perRule).toContainEqual({ rule_id: mine!.rule_id, name: 'over 100', triggered: expect.anything() });
  });

  it('answers a transaction_id sent again with its stored decision, marked as a replay; another body under it is a 409', async () => {
    const created = await api.post('/rules/org_a', rule({ name: 'replayed big', threshold: 1, evaluations: [{ name: 'big', expression: 'amount > 1000' }] }));
    const ruleId = created.body.data.ruleId as string;
    try {
      const t = tx({ transaction_id: 'replay-1', amount: 5000 });
      const first = await api.post('/transaction/org_a', t);
      expect(first.status).toBe(200);
      expect(first.headers?.get('idempotent-replayed')).toBeNull();
      const mine = (a: Answer) => a.body.data.processedRules.find((r: { ruleId: string }) => r.ruleId === ruleId);
      expect(mine(first)).toMatchObject({ name: 'replayed big', triggered: true, evaluations: [{ name: 'big', result: true }] });

      // The rule changes: a replay still answers the decision stored, not a new evaluation.
      await api.put(`/rules/org_a/${ruleId}`, rule({ name: 'replayed big', evaluations: [{ name: 'big', expression: 'amount > 1000000' }] }));
      const again = await api.post('/transaction/org_a', { ...t });
      expect(again.status).toBe(200);
      expect(again.headers?.get('idempotent-replayed')).toBe('true');
      expect(again.body.data.replay).toBe(true);
      const { replay: _replay, ...data } = again.body.data;
      expect(data).toEqual(first.body.data);

      expectError(await api.post('/transaction/org_a', { ...t, amount: 1 }), 409, /transaction_id "replay-1" was evaluated .* with another body/);
      const stored = await query<{ triggered_rules_count: number }>('SELECT triggered_rules_count FROM decisions FINAL WHERE org_id = {o:String} AND transaction_id = {t:String}', { o: 'org_a', t: 'replay-1' });
      expect(stored).toEqual([{ triggered_rules_count: first.body.data.triggeredRulesCount }]);
      // The same id in another organization is another transaction.
      expect((await client(p.url, 'key_b').post('/transaction/org_b', { ...t, amount: 1 })).body.data.replay).toBeUndefined();
    } finally {
      await api.delete(`/rules/org_a/${ruleId}`);
    }
  });

  it('evaluates transactions that producers publish straight to the topic; invalid ones go to the DLQ', async () => {
    const direct = tx({ transaction_id: 'direct-1', amount: 5000, org_id: 'org_a' });
    const bad = tx({ transaction_id: 'direct-bad', transaction_time: '99:00:00', org_id: 'org_a' });
    await p.platform.bus.send('transactions', [
      { key: 'org_a:acct-1', value: await p.platform.codec.encode('transactions', direct) },
      { key: 'org_a:acct-1', value: Buffer.from(JSON.stringify(bad)) },
    ]);
    const [row] = await eventually(async () => {
      const r = await query<{ score: number; triggered_rules_count: number }>("SELECT * FROM decisions FINAL WHERE org_id = 'org_a' AND transaction_id = 'direct-1'");
      return r.length > 0 ? r : undefined;
    });
    expect(row!.triggered_rules_count).toBeGreaterThanOrEqual(1);
    const dead: string[] = [];
    const sub = await p.platform.bus.subscribe({
      groupId: 'test.dlq',
      topics: [dlqTopic('transactions')],
      fromBeginning: true,
      eachBatch: async (b) => {
        for (const m of b.messages) dead.push(`${JSON.parse(m.value.toString()).transaction_id}: ${m.headers?.['x-weir-dlq-reason']}`);
      },
    });
    await eventually(async () => (dead.length > 0 ? true : undefined));
    await sub.stop();
    expect(dead).toEqual([expect.stringMatching(/^direct-bad: invalid transaction: transaction_time/)]);
    expect(await query("SELECT * FROM decisions FINAL WHERE transaction_id = 'direct-bad'")).toEqual([]);
  });

  it('evaluates a message whose decision headers are not signed by the engine instead of storing them', async () => {
    const forgedDecision = JSON.stringify({ decided_at: '2024-03-01T14:05:00Z', score: 0, triggered_rules_count: 0 });
    const forged = (transactionId: string, extra: Record<string, string>) => ({
      key: 'org_a:acct-1',
      value: Buffer.from(JSON.stringify(tx({ transaction_id: transactionId, amount: 5000, org_id: 'org_a' }))),
      headers: { 'x-weir-decision': forgedDecision, 'x-weir-rule-results': '[]', ...extra },
    });
    // The engine's own signature of another message, lifted onto a forged one, does not verify either.
    expect((await api.post('/transaction/org_a', tx({ transaction_id: 'signed-1', amount: 5000 }))).status).toBe(200);
    let genuine: Record<string, string> | undefined;
    const sub = await p.platform.bus.subscribe({
      groupId: 'test.lift',
      topics: ['transactions'],
      fromBeginning: true,
      eachBatch: async (b) => {
        for (const m of b.messages) if (JSON.parse(m.value.toString()).transaction_id === 'signed-1') genuine = m.headers;
      },
    });
    const lifted = await eventually(async () => genuine);
    await sub.stop();
    expect(lifted['x-weir-decision-signature']).toMatch(/^v1=/);
    await p.platform.bus.send('transactions', [
      forged('forged-unsigned', {}),
      forged('forged-bad-signature', { 'x-weir-decision-signature': 'v1=AAAA' }),
      { ...forged('forged-lifted', {}), headers: { ...lifted, 'x-weir-decision': forgedDecision } },
      { ...forged('forged-lifted-whole', {}), headers: lifted },
      { ...forged('forged-bad-results', {}), headers: { 'x-weir-decision': forgedDecision, 'x-weir-rule-results': '[["r1",1,2,0,[]]]' } },
    ]);
    const ids = ['forged-unsigned', 'forged-bad-signature', 'forged-lifted', 'forged-lifted-whole', 'forged-bad-results'];
    const rows = await eventually(async () => {
      const r = await query<{ transaction_id: string; triggered_rules_count: number; decided_at: string }>(
        'SELECT transaction_id, triggered_rules_count, decided_at FROM decisions FINAL WHERE org_id = {org:String} AND transaction_id IN {ids:Array(String)}',
        { org: 'org_a', ids },
      );
      return r.length === ids.length ? r : undefined;
    });
    const instant = (clickhouse: string) => Date.parse(`${clickhouse.replace(' ', 'T')}Z`);
    const liftedAt = Date.parse(JSON.parse(lifted['x-weir-decision']!).decided_at);
    for (const row of rows) {
      expect(row.triggered_rules_count, row.transaction_id).toBeGreaterThanOrEqual(1);
      expect(instant(row.decided_at), row.transaction_id).toBeGreaterThan(liftedAt);
    }
  });
});

describe('trace', () => {
  it('is present only when TRANSACTION_TRACE is true', async () => {
    const traced = await startTestProcess({ services: [countersService, rulesService({ counters: createCounterReader })], env: { TRANSACTION_TRACE: 'true' } });
    try {
      const a = client(traced.url, 'key_a');
      await a.post('/rules/org_a', rule());
      const answer = await a.post('/transaction/org_a', tx());
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.data.trace).toMatchObject({ rules_evaluated: 1, duration_ms: expect.any(Number), errors: [] });
    } finally {
      await traced.stop();
    }
  });
});

describe('quotas', () => {
  it('refuses rules, tables and columns beyond the organization limits with a 400 naming the limit', async () => {
    const env = { QUOTA_RULES_PER_ORG: '2', QUOTA_TABLES_PER_ORG: '2', QUOTA_COLUMNS_PER_ORG: '5' };
    const limited = await startTestProcess({ services: [countersService, rulesService({ counters: createCounterReader })], env });
    try {
      const a = client(limited.url, 'key_a');
      expect((await a.post('/rules/org_a', rule())).status).toBe(201);
      expect((await a.post('/rules/org_a', rule())).status).toBe(201);
      expectError(await a.post('/rules/org_a', rule()), 400, /quota exceeded: an organization may have at most 2 rules \(QUOTA_RULES_PER_ORG\)/);
      // Another organization has limits of its own.
      expect((await client(limited.url, 'key_b').post('/rules/org_b', rule())).status).toBe(201);

      const table = (tableName: string, columns: number) => ({
        tableName,
        columns: Array.from({ length: columns }, (_, i) => ({ name: `c${i}`, type: 'string' })),
        optimization: { status: 'disabled' },
      });
      expect((await a.post('/tables/org_a', table('one', 2))).status).toBe(201);
      expectError(await a.post('/tables/org_a', table('two', 3)), 400, /at most 5 columns over its custom tables \(this table would make 7\) \(QUOTA_COLUMNS_PER_ORG\)/);
      expect((await a.post('/tables/org_a', table('two', 1))).status).toBe(201);
      expectError(await a.post('/tables/org_a', table('three', 1)), 400, /at most 2 custom tables \(QUOTA_TABLES_PER_ORG\)/);
      expect((await a.delete('/tables/org_a/two')).status).toBe(200);
      expect((await a.post('/tables/org_a', table('three', 1))).status).toBe(201);
    } finally {
      await limited.stop();
    }
  });
});
