import { counterTableName, customTableName } from '../domain/tenant-names.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { manualClock } from '../infra/clock.js';
import { DLQ_REASON_HEADER, dlqTopic } from '../infra/bus/types.js';
import { countersService, createCounterReader } from '../services/counters.js';
import { countersClient, waitFor } from './fixtures/counters-http.js';
import { sampleConfigBody } from './fixtures/counters-config.js';
import { createConfigStore, VersionConflictError } from '../pipelines/counters/config-store.js';
import { createCounterTable } from '../pipelines/counters/counter-table.js';
import { counterConfigBodySchema } from '../schemas/http/counters.js';

/**
 * The counter service end to end on embedded defaults (embedded log, in-process window store, chDB),
 * with a manual clock so window edges and expiry are exact instants.
 */

const ORGS = Array.from({ length: 32 }, (_, i) => `org${i}`);
// Both intake and pipeline judge time by the platform clock, so it may start anywhere: 01:00 UTC
// leaves the day-long flush interval of the threshold test no tick within the file's run.
const T0 = Date.UTC(2030, 0, 1, 1, 0, 0);
const clock = manualClock(T0);
let p: Awaited<ReturnType<typeof startTestProcess>>;
let orgSeq = 0;

/** A fresh organization and its client, so tests do not see each other's data. */
function freshOrg() {
  const org = ORGS[orgSeq++]!;
  return { org, c: countersClient(p.url, org, `key-${org}`) };
}

const iso = (ms: number) => new Date(ms).toISOString();
let evSeq = 0;
const ev = (fields: Record<string, unknown> = {}) => ({ event_id: `e${++evSeq}`, entity_id: 'u1', event_type: 'login', occurred_at: iso(clock.now()), ...fields });

const countConfig = (extra: Record<string, unknown> = {}) => ({
  flush_interval_seconds: 1,
  counters: [{ name: 'logins_1h', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' } }],
  ...extra,
});

async function rows(org: string, table = 'entity_counters'): Promise<Record<string, unknown>[]> {
  const rs = await p.platform.analytics.query({ query: `SELECT * FROM \`${counterTableName(org, table)}\` FINAL WHERE org_id = {org:String} ORDER BY entity_id`, query_params: { org }, format: 'JSONEachRow' });
  return rs.json();
}

/** Collects the dead-letter reasons of `events` as they arrive. */
async function deadLetterReasons(org: string) {
  const reasons: string[] = [];
  const sub = await p.platform.bus.subscribe({
    groupId: `dlq-reader-${org}`,
    topics: [dlqTopic('events')],
    eachBatch: async (batch) => {
      for (const m of batch.messages) reasons.push(m.headers?.[DLQ_REASON_HEADER] ?? '');
    },
  });
  return { reasons, sub };
}

const live = (c: ReturnType<typeof countersClient>, entity = 'u1') => async () => (await c.realtime(entity)).body.data.counters as Record<string, unknown>;

/**
 * Moves the clock by `stepMs`, then waits until the table shows what `done` wants. The pipeline
 * queues an entity for flushing just after its live value changes, so a tick may come before the
 * queue entry: while waiting, the clock keeps moving a second at a time (one flush tick each).
 */
async function flushUntil(org: string, done: (r: Record<string, unknown>[]) => boolean, stepMs = 1000, table = 'entity_counters') {
  clock.advance(stepMs);
  let polls = 0;
  return waitFor(
    () => {
      if (++polls % 5 === 0) clock.advance(1000);
      return rows(org, table);
    },
    done,
  );
}

beforeAll(async () => {
  p = await startTestProcess({ services: [countersService], clock, env: { API_KEYS: ORGS.map((o) => `${o}:key-${o}`).join(',') } });
});
afterAll(async () => {
  await p?.stop();
});

describe('credentials and the OpenAPI document', () => {
  it('serves OpenAPI 3.0 for the counter endpoints without credentials', async () => {
    const res = await fetch(`${p.url}/v1/counter-stream/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    expect(doc.openapi).toMatch(/^3\.0/);
    expect(Object.keys(doc.paths).sort()).toEqual(
      ['/v1/counter-stream/openapi.json', '/v1/counters/{org_id}', '/v1/entities/{org_id}/{entity_id}/realtime', '/v1/events/{org_id}', '/v1/events/{org_id}/batch'].sort(),
    );
    expect(Object.keys(doc.paths['/v1/counters/{org_id}']!).sort()).toEqual(['get', 'put']);
    expect(doc.components.schemas).toHaveProperty('CounterDefinition');
    expect(doc.components.schemas).toHaveProperty('CounterEvent');
  });

  it('answers 401 without a key or org header and 403 for another organization', async () => {
    const { org } = freshOrg();
    const noKey = await fetch(`${p.url}/v1/counters/${org}`, { headers: { 'x-org-id': org } });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ status: 'error', error: 'unauthorized' });
    expect((await fetch(`${p.url}/v1/counters/${org}`, { headers: { 'x-api-key': `key-${org}` } })).status).toBe(401);
    expect((await fetch(`${p.url}/v1/counters/${org}`, { headers: { 'x-org-id': 'org15', 'x-api-key': `key-${org}` } })).status).toBe(403);
    expect((await countersClient(p.url, org, `key-${org}`).call('GET', '/v1/counters/org15')).status).toBe(403);
    expect((await countersClient(p.url, org, `key-${org}`).call('GET', '/v1/entities/org15/u1/realtime')).status).toBe(403);
  });
});

describe('configuration', () => {
  it('answers null before any configuration, then versions every whole replacement', async () => {
    const { c } = freshOrg();
    expect((await c.getConfig()).body).toEqual({ status: 'ok', data: null });
    const first = await c.putConfig(sampleConfigBody());
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ version: 1, table_name: 'entity_counters', flush_interval_seconds: 1 });
    expect((await c.getConfig()).body.data).toEqual(first.body.data);

    const stale = await c.putConfig({ ...sampleConfigBody(), version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ status: 'error', error: 'version_conflict', current_version: 1 });
    const missing = await c.putConfig(sampleConfigBody());
    expect(missing.status).toBe(409);
    expect(missing.body.current_version).toBe(1);

    const second = await c.putConfig({ ...sampleConfigBody(), flush_interval_seconds: 30, version: 1 });
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ version: 2, flush_interval_seconds: 30 });
  });

  it('takes back what GET answered: GET, PUT of its data unchanged, GET answers the same at the next version', async () => {
    const { c } = freshOrg();
    await c.putConfig(sampleConfigBody());
    const read = (await c.getConfig()).body.data;
    const put = await c.putConfig(read);
    expect(put.status).toBe(200);
    const again = (await c.getConfig()).body.data;
    expect(again).toEqual({ ...read, version: read.version + 1 });
    // The whole answer sent back, envelope and all, is taken too: its data is the configuration.
    const whole = await c.putConfig(await c.getConfig().then((a) => a.body));
    expect(whole.status).toBe(200);
    expect((await c.getConfig()).body.data).toEqual({ ...read, version: read.version + 2 });
  });

  it('refuses a version when none exists, and lets one of two racing writers win', async () => {
    const { c } = freshOrg();
    const early = await c.putConfig({ ...countConfig(), version: 3 });
    expect(early.status).toBe(409);
    expect(early.body.current_version).toBeNull();
    await c.putConfig(countConfig());
    const [a, b] = await Promise.all([c.putConfig({ ...countConfig(), version: 1 }), c.putConfig({ ...countConfig(), version: 1 })]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect((await c.getConfig()).body.data.version).toBe(2);
  });

  it('lets one of two processes win a race for the same version (window-store lease)', async () => {
    const { org } = freshOrg();
    // Two stores with separate in-process locks stand for two API processes sharing ClickHouse and the window store.
    const store = () => createConfigStore({ analytics: p.platform.analytics, windows: p.platform.windows, table: createCounterTable(p.platform.analytics), maxColumns: 2_000 });
    const [a, b] = [store(), store()];
    const body = counterConfigBodySchema.parse(countConfig());
    const results = await Promise.allSettled([a.save(org, body), b.save(org, body)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflictError);
    expect((await a.current(org))?.config.version).toBe(1);
  });

  it('answers 400 naming the field for an invalid configuration', async () => {
    const { c } = freshOrg();
    const bad = await c.putConfig({ ...countConfig(), counters: [{ name: 'Bad-Name', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' } }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 'error', error: 'validation_error' });
    expect(bad.body.message).toContain('counters[0].name');
    const noWindow = await c.putConfig({ counters: [{ name: 'n', event_type: 'login', aggregate: 'sum' }] });
    expect(noWindow.body.message).toContain('counters[0].window: is required for a sum counter');
    const slow = await c.putConfig({ ...countConfig(), flush_interval_seconds: 0 });
    expect(slow.body.message).toContain('flush_interval_seconds');
  });

  it("keeps each organization's counter table its own: the same names and types never meet", async () => {
    const a = freshOrg();
    const b = freshOrg();
    expect((await a.c.putConfig({ counters: [{ name: 'shared_name', event_type: 'x', aggregate: 'count', window: { amount: 1, unit: 'hours' } }] })).status).toBe(200);
    // Another type under the same name, in a table of the same name: no conflict, and nothing of a's is told.
    expect((await b.c.putConfig({ counters: [{ name: 'shared_name', event_type: 'x', aggregate: 'last_seen' }] })).status).toBe(200);
    const tables = await p.platform.analytics.query({
      query: 'SELECT name FROM system.tables WHERE database = currentDatabase() AND name IN {names:Array(String)} ORDER BY name',
      query_params: { names: [counterTableName(a.org, 'entity_counters'), counterTableName(b.org, 'entity_counters'), 'entity_counters'] },
      format: 'JSONEachRow',
    });
    expect((await tables.json<{ name: string }>()).map((t) => t.name).sort()).toEqual([counterTableName(a.org, 'entity_counters'), counterTableName(b.org, 'entity_counters')].sort());
  });

  it("cannot reach another organization's custom table through its counter table_name", async () => {
    const a = freshOrg();
    const b = freshOrg();
    // b names its counter table after the physical name of a's future custom table: it lands in b's own namespace.
    const target = customTableName(a.org, 'accounts');
    expect((await b.c.putConfig({ table_name: target, counters: [{ name: 'n', event_type: 'x', aggregate: 'count', window: { amount: 1, unit: 'hours' } }] })).status).toBe(200);
    const made = await p.platform.analytics.query({ query: 'SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = {t:String}', query_params: { t: target }, format: 'JSONEachRow' });
    expect(await made.json()).toEqual([{ n: 0 }]);
  });
});

describe('event intake', () => {
  it('accepts one event with 202 and rejects a bad one with 400', async () => {
    const { c } = freshOrg();
    await c.putConfig(countConfig());
    const ok = await c.postEvent(ev());
    expect(ok.status).toBe(202);
    expect(ok.body).toEqual({ status: 'ok', data: { accepted: 1, duplicates: 0, rejected: [] } });
    const bad = await c.postEvent(ev({ occurred_at: 'yesterday' }));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('occurred_at');
    expect((await c.call('POST', `/v1/events/${ORGS[0]}`, [ev()])).status).toBe(403);
  });

  it('refuses a bare array and more than 500 events', async () => {
    const { org, c } = freshOrg();
    const bare = await c.call('POST', `/v1/events/${org}/batch`, [ev()]);
    expect(bare.status).toBe(400);
    expect(bare.body.message).toContain('bare array');
    const big = await c.postBatch(Array.from({ length: 501 }, () => ev()));
    expect(big.status).toBe(400);
    expect(big.body.message).toContain('at most 500');
    expect((await c.postBatch(Array.from({ length: 500 }, () => ev()))).body.data.accepted).toBe(500);
  });

  it('rejects bad items by index and accepts the rest', async () => {
    const { c } = freshOrg();
    await c.putConfig({
      attributes: [{ name: 'channel', type: 'text' }],
      counters: [{ name: 'deposits', event_type: 'deposit', aggregate: 'sum', window: { amount: 1, unit: 'days' } }],
    });
    const res = await c.postBatch([
      ev(),
      { event_id: 'x', entity_id: 'u1', occurred_at: iso(clock.now()) },
      ev({ occurred_at: iso(clock.now() + 5 * 60_000 + 1000) }),
      ev({ attributes: { device: 'ios' } }),
      ev({ event_type: 'deposit', value: '12' }),
      ev({ event_type: 'deposit' }),
      ev({ event_type: 'deposit', value: 12, attributes: { channel: 'web' } }),
      'not an object',
      ev({ occurred_at: iso(clock.now() + 4 * 60_000) }),
    ]);
    expect(res.status).toBe(202);
    expect(res.body.data.accepted).toBe(3);
    const reasons = Object.fromEntries((res.body.data.rejected as { index: number; reason: string }[]).map((r) => [r.index, r.reason]));
    expect(Object.keys(reasons).map(Number)).toEqual([1, 2, 3, 4, 5, 7]);
    expect(reasons[1]).toContain('event_type');
    expect(reasons[2]).toContain('more than 5 minutes in the future');
    expect(reasons[3]).toContain('attribute device is not declared');
    expect(reasons[4]).toMatch(/^value: .*number/);
    expect(reasons[5]).toContain('sum counter deposits adds it');
  });

  it('refuses a value beyond 1e15 in magnitude, over HTTP and from the topic, so no sum can overflow', async () => {
    const { org, c } = freshOrg();
    await c.putConfig({ counters: [{ name: 'deposits', event_type: 'deposit', aggregate: 'sum', window: { amount: 1, unit: 'days' } }] });
    const res = await c.postBatch([ev({ event_type: 'deposit', value: 1e308 }), ev({ event_type: 'deposit', value: -1e16 }), ev({ entity_id: 'big', event_type: 'deposit', value: 1e15 })]);
    expect(res.body.data.accepted).toBe(1);
    expect(res.body.data.rejected).toEqual([
      { index: 0, reason: expect.stringMatching(/^value: must be at most 1e15/) },
      { index: 1, reason: expect.stringMatching(/^value: must be at least -1e15/) },
    ]);
    const one = await c.postEvent(ev({ event_type: 'deposit', value: 1e308 }));
    expect(one.status).toBe(400);
    expect(one.body.message).toMatch(/value: must be at most 1e15/);

    const { reasons, sub } = await deadLetterReasons(org);
    const huge = ev({ entity_id: 'big', event_type: 'deposit', value: 1e308 });
    await p.platform.bus.send('events', [{ key: `${org}:big`, value: await p.platform.codec.encode('events', { org_id: org, ...huge }) }]);
    await waitFor(async () => reasons, (r) => r.some((x) => x.includes('must be at most 1e15')));
    await sub.stop();
    expect((await live(c, 'big')()).deposits).toBe(1e15);
  });

  it('counts a re-sent id once, inside one batch and across batches', async () => {
    const { c } = freshOrg();
    await c.putConfig(countConfig());
    const a = ev({ entity_id: 'dup' });
    const b = ev({ entity_id: 'dup' });
    expect((await c.postBatch([a, a, b])).body.data).toEqual({ accepted: 2, duplicates: 1, rejected: [] });
    expect((await c.postBatch([b, ev({ entity_id: 'dup' })])).body.data).toEqual({ accepted: 1, duplicates: 1, rejected: [] });
    expect((await c.postEvent(a)).body.data).toEqual({ accepted: 0, duplicates: 1, rejected: [] });
    // A later event of the same entity (same partition) counts only after every duplicate before it was handled.
    expect((await c.postEvent(ev({ entity_id: 'dup' }))).body.data.accepted).toBe(1);
    await waitFor(live(c, 'dup'), (v) => v.logins_1h === 4);
    expect((await live(c, 'dup')()).logins_1h).toBe(4);
  });

  it('treats an event_id re-sent with another entity_id as the same event, over HTTP and on the topic', async () => {
    const { org, c } = freshOrg();
    await c.putConfig(countConfig());
    const a = ev({ entity_id: 'first' });
    expect((await c.postEvent(a)).body.data).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    expect((await c.postEvent({ ...a, entity_id: 'second' })).body.data).toEqual({ accepted: 0, duplicates: 1, rejected: [] });
    await p.platform.bus.send('events', [{ key: `${org}:third`, value: await p.platform.codec.encode('events', { org_id: org, ...a, entity_id: 'third' }) }]);
    // Markers behind the re-sent id on each entity's partition.
    for (const entity of ['second', 'third']) {
      await p.platform.bus.send('events', [{ key: `${org}:${entity}`, value: await p.platform.codec.encode('events', { org_id: org, ...ev({ entity_id: entity }) }) }]);
    }
    await waitFor(live(c, 'second'), (v) => v.logins_1h === 1);
    await waitFor(live(c, 'third'), (v) => v.logins_1h === 1);
    expect((await live(c, 'first')()).logins_1h).toBe(1);
    expect((await live(c, 'second')()).logins_1h).toBe(1);
    expect((await live(c, 'third')()).logins_1h).toBe(1);
  });

  it('remembers ids for the configured event_id_window: a duplicate inside it, a new event after it', async () => {
    const { c } = freshOrg();
    await c.putConfig(countConfig({ event_id_window: { amount: 1, unit: 'seconds' } }));
    expect((await c.getConfig()).body.data.event_id_window).toEqual({ amount: 1, unit: 'seconds' });
    const a = ev({ entity_id: 'windowed' });
    expect((await c.postEvent(a)).body.data.accepted).toBe(1);
    expect((await c.postEvent(a)).body.data).toEqual({ accepted: 0, duplicates: 1, rejected: [] });
    await waitFor(live(c, 'windowed'), (v) => v.logins_1h === 1);
    // The window runs on the window store's clock (real time): re-send until the id is forgotten.
    await waitFor(async () => (await c.postEvent(a)).body.data.accepted, (n) => n === 1);
    await waitFor(live(c, 'windowed'), (v) => v.logins_1h === 2);
  });

  it('defaults event_id_window to 24 hours, documents it in OpenAPI and refuses one over 72 hours', async () => {
    const doc = (await (await fetch(`${p.url}/v1/counter-stream/openapi.json`)).json()) as { components: { schemas: Record<string, { description?: string }> } };
    expect(doc.components.schemas.EventIdWindow?.description).toContain('re-sent within this window');
    const { c } = freshOrg();
    expect((await c.putConfig(countConfig())).body.data.event_id_window).toEqual({ amount: 24, unit: 'hours' });
    const res = await c.putConfig(countConfig({ event_id_window: { amount: 4, unit: 'days' }, version: 1 }));
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('event_id_window');
  });

  it('counts topic-fed events with the same rules, dead-letters invalid ones and counts a redelivery once', async () => {
    const { org, c } = freshOrg();
    await c.putConfig(countConfig());
    const publish = async (value: Record<string, unknown>) =>
      p.platform.bus.send('events', [{ key: `${org}:${String(value.entity_id)}`, value: await p.platform.codec.encode('events', { org_id: org, ...value }) }]);
    const good = ev({ entity_id: 'topic' });
    await publish(good);
    await publish(good);
    await publish(ev({ entity_id: 'topic', attributes: { undeclared: 'x' } }));
    await p.platform.bus.send('events', [{ key: null, value: Buffer.from('{"not":"an event"}') }]);
    // A marker behind the redelivery on the entity's partition: once it counts, the redelivery was handled.
    await publish(ev({ entity_id: 'topic' }));
    await waitFor(live(c, 'topic'), (v) => v.logins_1h === 2);
    expect((await live(c, 'topic')()).logins_1h).toBe(2);

    const { reasons, sub } = await deadLetterReasons(org);
    await waitFor(async () => reasons, (r) => r.some((x) => x.includes('undeclared is not declared')) && r.some((x) => x.includes('event_id')));
    await sub.stop();
  });
});

describe('windows', () => {
  it('counts an event just inside the window and not one at or beyond the edge', async () => {
    const { c } = freshOrg();
    await c.putConfig(countConfig());
    const now = clock.now();
    await c.postBatch([
      ev({ entity_id: 'edge', occurred_at: iso(now - 3_600_000 + 1000) }),
      ev({ entity_id: 'edge', occurred_at: iso(now - 3_600_000) }),
      ev({ entity_id: 'edge', occurred_at: iso(now - 3_600_000 - 1) }),
      ev({ entity_id: 'edge', occurred_at: iso(now) }),
    ]);
    await waitFor(live(c, 'edge'), (v) => v.logins_1h === 2);
    clock.advance(1000);
    expect((await live(c, 'edge')()).logins_1h).toBe(1);
  });

  it('puts a late event in its bucket: it leaves the window an hour after it occurred', async () => {
    const { c } = freshOrg();
    await c.putConfig(countConfig());
    const now = clock.now();
    await c.postBatch([ev({ entity_id: 'late', occurred_at: iso(now - 1_800_000) }), ev({ entity_id: 'late', occurred_at: iso(now) })]);
    await waitFor(live(c, 'late'), (v) => v.logins_1h === 2);
    clock.advance(1_800_000);
    expect((await live(c, 'late')()).logins_1h).toBe(1);
    clock.advance(1_800_000);
    expect((await live(c, 'late')()).logins_1h).toBe(0);
  });

  it('keeps sums and last_seen live', async () => {
    const { c } = freshOrg();
    await c.putConfig(sampleConfigBody());
    const now = clock.now();
    await c.postBatch([
      ev({ entity_id: 'mix', event_type: 'deposit', value: 10.5 }),
      ev({ entity_id: 'mix', event_type: 'deposit', value: 2 }),
      ev({ entity_id: 'mix', occurred_at: iso(now - 60_000) }),
      ev({ entity_id: 'mix', occurred_at: iso(now - 120_000) }),
      ev({ entity_id: 'mix', event_type: 'login_failed', attributes: { channel: 'app' } }),
    ]);
    const v = await waitFor(live(c, 'mix'), (x) => x.deposits_7d === 12.5 && x.logins_1h === 2);
    expect(v).toEqual({ logins_1h: 2, failed_web_logins_24h: 0, deposits_7d: 12.5, last_login: iso(now - 60_000) });
    const res = await c.realtime('mix');
    expect(res.body.data).toMatchObject({ entity_id: 'mix', as_of: iso(clock.now()) });
    expect((await c.realtime('nobody')).body.data.counters).toEqual({ logins_1h: 0, failed_web_logins_24h: 0, deposits_7d: 0, last_login: null });
  });
});

describe('flushing to the counter table', () => {
  it('writes changed entities each interval and lowers a value when its events leave the window', async () => {
    const { org, c } = freshOrg();
    await c.putConfig(countConfig());
    const now = clock.now();
    await c.postBatch([ev({ entity_id: 'fl', occurred_at: iso(now - 1_800_000) }), ev({ entity_id: 'fl', occurred_at: iso(now) })]);
    await waitFor(live(c, 'fl'), (v) => v.logins_1h === 2);
    await flushUntil(org, (r) => r[0]?.logins_1h === 2);
    // No new event: only the expiry queue brings the entity back to the flusher.
    await flushUntil(org, (r) => r[0]?.logins_1h === 1, 1_800_000);
    await flushUntil(org, (r) => r[0]?.logins_1h === 0, 1_800_000);
  });

  it('flushes at once when an event crosses an alert threshold', async () => {
    const { org, c } = freshOrg();
    await c.putConfig(countConfig({ flush_interval_seconds: 86_400, counters: [{ name: 'logins_1h', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' }, alert_thresholds: [3] }] }));
    await c.postBatch([ev({ entity_id: 'hot' }), ev({ entity_id: 'hot' }), ev({ entity_id: 'calm' })]);
    await waitFor(live(c, 'hot'), (v) => v.logins_1h === 2);
    expect(await rows(org)).toEqual([]);
    await c.postEvent(ev({ entity_id: 'hot' }));
    const r = await waitFor(() => rows(org), (x) => x.length > 0);
    expect(r).toEqual([expect.objectContaining({ entity_id: 'hot', logins_1h: 3 })]);
  });
});

describe('counter states', () => {
  it('inactive stops counting and keeps the column; active again resumes', async () => {
    const { org, c } = freshOrg();
    const def = { name: 'st_logins', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' } };
    // Marker events go to the same entity (same partition, in order) and show the pipeline got past the logins.
    const marker = { name: 'st_marker', event_type: 'marker', aggregate: 'count', window: { amount: 1, unit: 'hours' } };
    const config = (active: boolean, version?: number) => ({ flush_interval_seconds: 1, counters: [{ ...def, active }, marker], version });
    await c.putConfig(config(true));
    await c.postEvent(ev({ entity_id: 's' }));
    await waitFor(live(c, 's'), (v) => v.st_logins === 1);
    await flushUntil(org, (r) => r[0]?.st_logins === 1);

    expect((await c.putConfig(config(false, 1))).status).toBe(200);
    await c.postBatch([ev({ entity_id: 's' }), ev({ entity_id: 's', event_type: 'marker' })]);
    expect(await waitFor(live(c, 's'), (v) => v.st_marker === 1)).toEqual({ st_logins: 1, st_marker: 1 });
    expect(await flushUntil(org, (r) => r[0]?.st_marker === 1)).toEqual([expect.objectContaining({ entity_id: 's', st_logins: 1, st_marker: 1 })]);

    expect((await c.putConfig(config(true, 2))).status).toBe(200);
    await c.postEvent(ev({ entity_id: 's' }));
    await waitFor(live(c, 's'), (v) => v.st_logins === 2);
    await flushUntil(org, (r) => r[0]?.st_logins === 2);

    // Inactive, then left out of the configuration: retired, its column keeps the last value.
    await c.putConfig(config(false, 3));
    expect((await c.putConfig({ flush_interval_seconds: 1, counters: [marker], version: 4 })).status).toBe(200);
    await c.postBatch([ev({ entity_id: 's' }), ev({ entity_id: 's', event_type: 'marker' })]);
    expect(await waitFor(live(c, 's'), (v) => v.st_marker === 2)).toEqual({ st_marker: 2 });
    expect(await flushUntil(org, (r) => r[0]?.st_marker === 2)).toEqual([expect.objectContaining({ entity_id: 's', st_logins: 2, st_marker: 2 })]);
  });

  it('a retired or renamed counter keeps its column and its last values', async () => {
    const { org, c } = freshOrg();
    const old = { name: 'rn_old', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' } };
    await c.putConfig({ flush_interval_seconds: 1, counters: [old] });
    await c.postBatch([ev({ entity_id: 'r' }), ev({ entity_id: 'r' })]);
    await waitFor(live(c, 'r'), (v) => v.rn_old === 2);
    await flushUntil(org, (r) => r[0]?.rn_old === 2);

    // Renamed: the old counter leaves the configuration (retired), the new name is a new column.
    const renamed = await c.putConfig({ flush_interval_seconds: 1, counters: [{ ...old, name: 'rn_new' }], version: 1 });
    expect(renamed.status).toBe(200);
    await c.postEvent(ev({ entity_id: 'r' }));
    await waitFor(live(c, 'r'), (v) => v.rn_new === 1);
    expect(await live(c, 'r')()).toEqual({ rn_new: 1 });
    // The entity's new row carries the retired column's last value.
    const r = await flushUntil(org, (x) => x[0]?.rn_new === 1);
    expect(r[0]).toMatchObject({ entity_id: 'r', rn_old: 2, rn_new: 1 });

    const reader = createCounterReader(p.platform);
    expect(await reader.describe(org)).toEqual({ tableName: 'entity_counters', counters: [{ name: 'rn_new', type: 'number' }, { name: 'rn_old', type: 'number' }] });
    expect(await reader.values(org, 'r')).toEqual({ rn_new: 1, rn_old: 2 });
    expect(await reader.values(org, 'unknown')).toEqual({ rn_new: 0, rn_old: null });
  });

  it('writes to the configured table and adds columns without losing data', async () => {
    const { org, c } = freshOrg();
    const a = { name: 'tb_a', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' } };
    await c.putConfig({ table_name: 'risk_counters', flush_interval_seconds: 1, counters: [a] });
    await c.postEvent(ev({ entity_id: 't' }));
    await waitFor(live(c, 't'), (v) => v.tb_a === 1);
    await flushUntil(org, (r) => r[0]?.tb_a === 1, 1000, 'risk_counters');
    await c.putConfig({ table_name: 'risk_counters', flush_interval_seconds: 1, counters: [a, { name: 'tb_seen', event_type: 'login', aggregate: 'last_seen' }], version: 1 });
    const before = await rows(org, 'risk_counters');
    expect(before[0]).toMatchObject({ tb_a: 1, tb_seen: null });
  });
});

describe('quotas', () => {
  it('refuses events beyond the per-second limit with 429, and entities and counter columns beyond the limits with 400, each naming it', async () => {
    const quotaClock = manualClock(T0);
    const env = { API_KEYS: 'qa:key-qa,qb:key-qb', QUOTA_EVENTS_PER_SECOND_PER_ORG: '3', QUOTA_COLUMNS_PER_ORG: '2', QUOTA_ENTITIES_PER_ORG: '3' };
    const limited = await startTestProcess({ services: [countersService], clock: quotaClock, env });
    try {
      const a = countersClient(limited.url, 'qa', 'key-qa');
      const b = countersClient(limited.url, 'qb', 'key-qb');
      const login = (i: number) => ({ event_id: `q${i}`, entity_id: 'u1', event_type: 'login', occurred_at: iso(quotaClock.now()) });
      expect((await a.postBatch([login(1), login(2)])).status).toBe(202);
      const over = await a.postBatch([login(3), login(4)]);
      expect(over.status).toBe(429);
      expect(over.body).toMatchObject({ error: 'quota_exceeded', retry_after_seconds: 1 });
      expect(over.body.message).toMatch(/at most 3 events per second to one API process \(QUOTA_EVENTS_PER_SECOND_PER_ORG\)/);
      expect((await b.postBatch([login(5), login(6), login(7)])).status).toBe(202);
      quotaClock.advance(1000);
      expect((await a.postBatch([login(3), login(4)])).body.data.accepted).toBe(2);

      quotaClock.advance(1000);
      const entity = (i: number, id: string) => ({ ...login(i), entity_id: id });
      const some = await a.postBatch([entity(10, 'u2'), entity(11, 'u3'), entity(12, 'u4')]);
      expect(some.body.data).toEqual({
        accepted: 2,
        duplicates: 0,
        rejected: [{ index: 2, reason: 'entity_id: quota exceeded: an organization may have at most 3 entities (QUOTA_ENTITIES_PER_ORG)' }],
      });
      quotaClock.advance(1000);
      const one = await a.postEvent(entity(13, 'u5'));
      expect(one.status).toBe(400);
      expect(one.body.message).toMatch(/entity_id: quota exceeded: an organization may have at most 3 entities/);
      expect((await a.postEvent(entity(14, 'u3'))).status).toBe(202);
      expect((await b.postEvent(entity(15, 'u5'))).status).toBe(202);

      const counter = (name: string) => ({ name, event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' } });
      expect((await a.putConfig({ counters: [counter('c1'), counter('c2')] })).status).toBe(200);
      // c2 retired keeps its column: with c3 the table would hold three.
      const tooMany = await a.putConfig({ counters: [counter('c1'), counter('c3')], version: 1 });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body).toMatchObject({ error: 'quota_exceeded' });
      expect(tooMany.body.message).toMatch(/at most 2 columns in its counter table, retired counters included \(this configuration would make 3\) \(QUOTA_COLUMNS_PER_ORG\)/);
    } finally {
      await limited.stop();
    }
  });
});
