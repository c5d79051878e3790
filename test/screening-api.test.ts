import { mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../infra/clock.js';
import { screeningService } from '../services/screening.js';
import { startTestProcess } from './support/process.js';
import { REAL_LISTS_DIR } from './fixtures/sanctions/paths.js';

/** The whole screening service in one process on embedded defaults, with every real list loaded. */
describe.skipIf(!REAL_LISTS_DIR)('screening API', () => {
  const clock = manualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  const call = async (method: string, path: string, body?: unknown, key = 'key_a', headers: Record<string, string> = {}) => {
    const res = await fetch(`${p.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    p = await startTestProcess({
      services: [screeningService],
      env: { SANCTIONS_DATA_DIR: REAL_LISTS_DIR!, API_KEYS: 'org_a:key_a:enterprise,org_b:key_b:starter' },
      clock,
    });
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('blocks a listed name, with match, audit id and list version', async () => {
    const r = await call('POST', '/v1/aml/screen', { name: 'Hasan Nasrallah', dob: '1960-08-31', nationality: 'LB' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      decision: 'BLOCK',
      match: { entity_id: 'ofac-sdn-2686', entity_name: 'NASRALLAH, Hasan', source: 'OFAC-SDN', list_type: 'sanctions' },
      list_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$/),
      audit_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      processing_time_ms: expect.any(Number),
    });
    expect(r.body.match.score).toBeGreaterThanOrEqual(0.95);
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(r.headers.get(h)).toMatch(/^\d+$/);
  });

  it('reports the snapshot in service with counts per list', async () => {
    const r = await call('GET', '/v1/aml/lists');
    expect(r.body).toMatchObject({ status: 'ready', empty: false, last_error: null });
    expect(r.body.lists).toContainEqual(expect.objectContaining({ list: 'ofac-sdn', sources: ['OFAC-SDN'], entities: 14965 }));
  });

  it('sends a misspelled, reordered listed name to review and an ordinary name through', async () => {
    const typo = await call('POST', '/v1/aml/screen', { name: 'Nasralah Hassan' });
    expect(['REVIEW', 'BLOCK']).toContain(typo.body.decision);
    expect(typo.body.match.entity_id).toMatch(/-2686$/);
    const clear = await call('POST', '/v1/aml/screen', { name: 'Emily Johnson' });
    expect(clear.body).toMatchObject({ decision: 'CLEAR', match: null, relationship_match: null });
  });

  it('flags a person named only in a listed party\'s remarks as REVIEW with relationship_match', async () => {
    const r = await call('POST', '/v1/aml/screen', { name: 'Yves Saragba' });
    expect(r.body).toMatchObject({
      decision: 'REVIEW',
      match: null,
      relationship_match: {
        related_to: { entity_id: 'un-CFi.004', source: 'UN', list_type: 'sanctions' },
        relationship: { type: 'family_member', detail: 'Brother of Yves Saragba', confidence: 'stated' },
      },
    });
    expect(r.body.relationship_match.decision_reason).toContain('Brother of Yves Saragba');
  });

  it('matches a party named in an OFAC remark (Representative of ...) as a weak agent_of lead', async () => {
    const r = await call('POST', '/v1/aml/screen', { name: 'Korea Ryonbong General Corp in Vladivostok' });
    expect(r.body).toMatchObject({
      decision: 'REVIEW',
      relationship_match: { related_to: { entity_id: 'ofac-sdn-23516' }, relationship: { type: 'agent_of', confidence: 'weak' } },
    });
  });

  it('takes back what GET answers: GET, PUT of it unchanged, GET answers the same settings', async () => {
    const first = (await call('PUT', '/v1/aml/config', { min_score: 0.9, relationship_types: ['owner', 'family_member'] })).body;
    const read = (await call('GET', '/v1/aml/config')).body;
    expect(read).toEqual({ ...first, updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) });
    const put = await call('PUT', '/v1/aml/config', read);
    expect(put.status).toBe(200);
    const { updated_at: _a, ...settings } = read;
    const { updated_at: _b, ...again } = (await call('GET', '/v1/aml/config')).body;
    expect(again).toEqual(settings);
    await call('PUT', '/v1/aml/config', { min_score: 0.85, relationship_types: ['family_member', 'associate', 'owner', 'owned_by', 'employee', 'agent_of', 'linked_to'] });
  });

  it('applies per-organization relationship settings, stored and read back', async () => {
    expect((await call('GET', '/v1/aml/config', undefined, 'key_b')).body).toEqual({
      enabled: true,
      min_score: 0.85,
      decision_escalation: 'REVIEW',
      relationship_types: ['family_member', 'associate', 'owner', 'owned_by', 'employee', 'agent_of', 'linked_to'],
      updated_at: null,
    });
    const put = await call('PUT', '/v1/aml/config', { decision_escalation: 'BLOCK' }, 'key_b');
    expect(put.body.decision_escalation).toBe('BLOCK');
    expect((await call('POST', '/v1/aml/screen', { name: 'Yves Saragba' }, 'key_b')).body.decision).toBe('BLOCK');
    await call('PUT', '/v1/aml/config', { enabled: false }, 'key_b');
    expect((await call('POST', '/v1/aml/screen', { name: 'Yves Saragba' }, 'key_b')).body).toMatchObject({ decision: 'CLEAR', relationship_match: null });
    // Tenant isolation: org_a keeps the defaults.
    expect((await call('POST', '/v1/aml/screen', { name: 'Yves Saragba' })).body.decision).toBe('REVIEW');
    const bad = await call('PUT', '/v1/aml/config', { relationship_types: ['cousin'] }, 'key_b');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('relationship_types[0]');
  });

  it('explains every match, and reports a weak-alias hit left CLEAR (issue 33)', async () => {
    const r = await call('POST', '/v1/aml/screen', { name: 'Ali Khamenei', dob: '1939-04-19' });
    expect(r.body).toMatchObject({
      decision: 'BLOCK',
      weak_alias_match: null,
      match: {
        entity_id: 'ofac-sdn-26945',
        explanation: {
          matched_name: 'KHAMENEI, Ali Husseini',
          name_kind: 'primary',
          rule: 'inner_names_missing',
          thresholds: { review: 0.8, block: 0.95 },
          decision: 'BLOCK',
          attributes: [{ attribute: 'dob', given: '1939-04-19', listed: ['1939-04-19'], effect: 0.05, verdict: 'agrees' }],
        },
      },
    });
    expect(r.body.match.explanation.tokens).toContainEqual({ query: null, listed: 'husseini', similarity: 0, weight: expect.any(Number) });
    const weak = await call('POST', '/v1/aml/screen', { name: 'Otim Kapere' });
    expect(weak.body).toMatchObject({ decision: 'CLEAR', match: null, weak_alias_match: { explanation: { name_kind: 'weak', rule: 'weak_alias', decision: 'CLEAR' } } });
    const batch = await call('POST', '/v1/aml/screen/batch', { names: ['Otim Kapere'] });
    expect(batch.body.results[0]).toMatchObject({ decision: 'CLEAR', weak_alias_match: { explanation: { name_kind: 'weak' } } });
    const lookup = await call('POST', '/v1/aml/agent/lookup', { query: 'Ali Khamenei' });
    expect(lookup.body.explanation).toMatchObject({ rule: 'inner_names_missing', decision: 'REVIEW' });
    expect(lookup.body.markdown_profile).toContain('### Why this matched');
    expect(lookup.body.markdown_profile).toContain('`—` ↔ `husseini` 0');
    expect(lookup.body.markdown_profile).toMatch(/\*\*Decision:\*\* REVIEW at score 0\.797 \(REVIEW from 0\.8, BLOCK from 0\.95\)/);
  });

  it('screens a batch of up to 100 names and refuses 101', async () => {
    const names = ['Hasan Nasrallah', 'Emily Johnson', 'Banco Nacional de Cuba'];
    const r = await call('POST', '/v1/aml/screen/batch', { names });
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(3);
    expect(r.body.results.map((x: { decision: string }) => x.decision)).toEqual(['BLOCK', 'CLEAR', 'BLOCK']);
    const tooMany = await call('POST', '/v1/aml/screen/batch', { names: Array.from({ length: 101 }, (_, i) => `Name ${i}`) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: 'validation_error', request_id: expect.any(String) });
  });

  it('answers an agent lookup with a Markdown profile, relationships and citations', async () => {
    const r = await call('POST', '/v1/aml/agent/lookup', { query: 'Marija Milosevic', include_reverse_relationships: true });
    expect(r.body).toMatchObject({ match: true, direct_match: true, entity_id: 'ofac-sdn-7739', entity: { id: 'ofac-sdn-7739', source: 'OFAC-SDN' } });
    expect(r.body.markdown_profile).toContain('## MILOSEVIC, Marija');
    expect(r.body.related_entities).toContainEqual(expect.objectContaining({ id: 'ofac-sdn-7742', relationship_type: 'family_member', direction: 'outbound' }));
    expect(r.body.citations[0]).toBe(`OFAC-SDN entity 7739 (id ofac-sdn-7739), list version ${r.body.list_version}`);
    const rel = await call('POST', '/v1/aml/agent/lookup', { query: 'Yves Saragba' });
    expect(rel.body).toMatchObject({ match: true, direct_match: false, relationship_match: { matched_name: 'Yves Saragba', sanctioned_entity: { entity_id: 'un-CFi.004' }, relationship: { extraction_confidence: 'stated' } } });
    const batch = await call('POST', '/v1/aml/agent/lookup/batch', { queries: ['Marija Milosevic', 'Yves Saragba', 'Emily Johnson'] });
    expect(batch.body).toMatchObject({ count: 3, direct_matches: 1, relationship_matches: 1 });
    expect((await call('POST', '/v1/aml/agent/lookup/batch', { queries: Array(21).fill('x') })).status).toBe(400);
  });

  it('searches relationships, lists an entity\'s relationships and counts them', async () => {
    const search = await call('POST', '/v1/aml/relationships/search', { name: 'Slobodan Milosevic' });
    expect(search.body.has_matches).toBe(true);
    expect(search.body.matches).toContainEqual(expect.objectContaining({ related_to: expect.objectContaining({ entity_id: 'ofac-sdn-7739' }), relationship: expect.objectContaining({ type: 'family_member' }) }));
    const rels = await call('GET', '/v1/aml/entity/ofac-sdn-4697/relationships');
    expect(rels.body.entity).toEqual({ id: 'ofac-sdn-4697', name: 'HIZBALLAH', type: 'organization', source: 'OFAC-SDN' });
    expect(rels.body.relationships.linked_to.length).toBe(rels.body.total_relationships);
    expect((await call('GET', '/v1/aml/entity/nope-1/relationships')).status).toBe(404);
    const stats = await call('GET', '/v1/aml/relationships/stats');
    expect(stats.body.total_relationships).toBeGreaterThan(5000);
    expect(stats.body.by_type.family_member).toBeGreaterThan(10);
    expect(stats.body.by_source['OFAC-SDN']).toBeGreaterThan(5000);
  });

  it('says what is wrong with a bad request, and who may call', async () => {
    const noName = await call('POST', '/v1/aml/screen', { dob: '1960-13-01' });
    expect(noName.status).toBe(400);
    expect(noName.body.message).toMatch(/name/);
    expect(noName.body.message).toMatch(/dob/);
    const malformed = await call('POST', '/v1/aml/screen', '{"name":');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    const anonymous = await call('POST', '/v1/aml/screen', { name: 'x' }, '');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('limits a starter key to 10 requests per second with a 429', async () => {
    clock.advance(1000);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await call('GET', '/v1/aml/relationships/stats', undefined, 'key_b')).status);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    const over = await call('GET', '/v1/aml/relationships/stats', undefined, 'key_b');
    expect(over.status).toBe(429);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(over.body).toMatchObject({ error: 'rate_limited', request_id: expect.any(String) });
    clock.advance(1000);
    expect((await call('GET', '/v1/aml/relationships/stats', undefined, 'key_b')).status).toBe(200);
  });

  it('writes every screening to ClickHouse through the screenings topic, once per audit id', async () => {
    const first = await call('POST', '/v1/aml/screen', { name: 'Banco Nacional de Cuba' }, 'key_a', { 'idempotency-key': 'retry-1' });
    const retry = await call('POST', '/v1/aml/screen', { name: 'Banco Nacional de Cuba' }, 'key_a', { 'idempotency-key': 'retry-1' });
    expect(retry.body.audit_id).toBe(first.body.audit_id);
    let rows: { audit_id: string; decision: string; entity_id: string; org_id: string }[] = [];
    for (let i = 0; i < 100 && rows.length === 0; i++) {
      const rs = await p.platform.analytics.query({ query: 'SELECT audit_id, decision, entity_id, org_id FROM screenings FINAL WHERE audit_id = {id:String}', query_params: { id: first.body.audit_id }, format: 'JSONEachRow' });
      rows = await rs.json();
      if (rows.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(rows).toEqual([{ audit_id: first.body.audit_id, decision: 'BLOCK', entity_id: 'ofac-sdn-306', org_id: 'org_a' }]);
  });
});

/** Lists that cannot be read: the answers name no path and no system detail; the log keeps them. */
describe('screening API without readable lists', () => {
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  let listsDir: string;
  beforeAll(async () => {
    listsDir = await mkdtemp(path.join(os.tmpdir(), 'weir-unreadable-lists-'));
    await mkdir(path.join(listsDir, 'ofac', 'sdn.csv'), { recursive: true }); // a folder where the file should be
    p = await startTestProcess({ services: [screeningService], env: { SANCTIONS_DATA_DIR: listsDir, API_KEYS: 'org_a:key_a' } });
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('answers 503 and last_error with a generic message, not the file system error or its path', async () => {
    const headers = { 'content-type': 'application/json', 'x-api-key': 'key_a' };
    const screened = await fetch(`${p.url}/v1/aml/screen`, { method: 'POST', headers, body: JSON.stringify({ name: 'Someone' }) });
    expect(screened.status).toBe(503);
    const body = (await screened.json()) as { error: string; message: string };
    expect(body).toMatchObject({ error: 'lists_unavailable', message: 'no sanctions lists are in service: the list files could not be read (the server log has the details)' });
    const lists = (await (await fetch(`${p.url}/v1/aml/lists`, { headers })).json()) as { status: string; last_error: string };
    expect(lists).toMatchObject({ status: 'failed', last_error: 'the list files could not be read (the server log has the details)' });
    for (const text of [body.message, lists.last_error]) {
      expect(text).not.toContain(listsDir);
      expect(text).not.toMatch(/EISDIR|\/tmp\//);
    }
  });
});
