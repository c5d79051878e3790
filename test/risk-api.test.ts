import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { fetchOpenApi, undocumentedRoutes } from './support/openapi.js';
import { manualClock } from '../infra/clock.js';
import { riskService } from '../services/risk.js';
import { riskClient } from './fixtures/risk-http.js';
import { waitFor } from './fixtures/counters-http.js';
import type { ConsumedMessage } from '../infra/bus/types.js';
import { userEntity } from '../domain/risk/state.js';

/**
 * The risk check end to end on embedded defaults (embedded log, in-process window store, chDB),
 * IP lists from test/fixtures/risk-lists, and a manual clock for expiry.
 */

const T0 = Date.UTC(2030, 0, 7, 12, 0, 0);
const clock = manualClock(T0);
const ORGS = Array.from({ length: 64 }, (_, i) => `rorg${i}`);
let p: Awaited<ReturnType<typeof startTestProcess>>;
let seq = 0;
const fresh = () => {
  const org = ORGS[seq++]!;
  return { org, c: riskClient(p.url, org, `key-${org}`) };
};

const LONDON_IP = '81.2.69.160';
const SYDNEY_IP = '1.1.1.1';
const KP_IP = '175.45.176.1';
const TOR_IP = '198.51.100.7';
const base = (extra: Record<string, unknown> = {}) => ({ email: 'anna.rossi@example.com', context: { action: 'login', user_id: 'u1' }, ...extra });

async function rows(query: string, params: Record<string, unknown>) {
  const rs = await p.platform.analytics.query({ query, query_params: params, format: 'JSONEachRow' });
  return rs.json<Record<string, unknown>>();
}
const checksOf = (org: string, user: string) => rows('SELECT request_id FROM risk_checks FINAL WHERE org_id = {org:String} AND user_id = {user:String}', { org, user });

beforeAll(async () => {
  p = await startTestProcess({
    services: [riskService()],
    clock,
    env: {
      API_KEYS: ORGS.map((o) => `${o}:key-${o}`).join(','),
      RISK_LISTS_DIR: path.join(import.meta.dirname, 'fixtures', 'risk-lists'),
      OTP_DEV_ECHO: 'true',
    },
  });
});
afterAll(async () => {
  await p?.stop();
});

describe('credentials, errors and the OpenAPI document', () => {
  it('401 without a key or x-org-id, 403 for another organization, in the risk error body', async () => {
    const { org } = fresh();
    const noKey = await fetch(`${p.url}/v1/check`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-org-id': org }, body: '{}' });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ error: 'unauthorized', message: expect.any(String), details: {} });
    const noOrg = await fetch(`${p.url}/v1/check`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': `key-${org}` }, body: '{}' });
    expect(noOrg.status).toBe(401);
    const other = await riskClient(p.url, ORGS.at(-1)!, `key-${org}`).check(base());
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ error: 'forbidden', details: {} });
  });

  it('malformed JSON is a 400 in the same body', async () => {
    const { org } = fresh();
    const res = await fetch(`${p.url}/risk/v1/check`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-org-id': org, 'x-api-key': `key-${org}` }, body: '{"email":' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'malformed_json', details: {} });
  });

  it('the check is a lane (its plain case answered ahead of Express), the same answer as Express gives', async () => {
    const { org } = fresh();
    const post = (path: string, body: string | Buffer, headers: Record<string, string>) =>
      fetch(`${p.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-org-id': org, ...headers }, body });
    const body = JSON.stringify(base({ ip: LONDON_IP, context: { action: 'payment', user_id: 'lane-user' } }));
    // A compressed body is not a lane's plain case: Express answers it, through the same handler.
    const gzipped = { 'content-encoding': 'gzip' };
    for (const path of ['/v1/check', '/risk/v1/check']) {
      // Either way an unknown key is refused before the body is read (it is not even JSON).
      for (const res of [await post(path, '{"email":', { 'x-api-key': 'no-such-key' }), await post(path, gzipSync('{"email":'), { 'x-api-key': 'no-such-key', ...gzipped })]) {
        expect(res.status).toBe(401);
        expect(await res.json()).toMatchObject({ error: 'unauthorized', details: {} });
      }
      const lane = await post(path, body, { 'x-api-key': `key-${org}` });
      const express = await post(path, gzipSync(body), { 'x-api-key': `key-${org}`, ...gzipped });
      expect([lane.status, express.status]).toEqual([200, 200]);
      // Express decorates its answers (an ETag); the lane writes the JSON alone.
      expect([lane.headers.get('etag'), express.headers.get('etag')]).toEqual([null, expect.any(String)]);
      expect(lane.headers.get('content-type')).toBe(express.headers.get('content-type'));
      const [a, b] = [(await lane.json()) as Record<string, unknown>, (await express.json()) as Record<string, unknown>];
      expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
      expect(a.reasons).toEqual(b.reasons);
      expect(a.request_id).not.toEqual(b.request_id);
    }
  });

  it('serves OpenAPI 3.0 without credentials, documenting every route it serves', async () => {
    const { org } = fresh();
    const { doc } = await fetchOpenApi(`${p.url}/risk/openapi.json`);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/check', '/v1/eval/check', '/v1/whitelist', '/v1/whitelist/{id}', '/v1/feedback', '/v1/challenge/issue', '/v1/challenge/verify', '/v1/weights', '/sessions/{entity_id}', '/gdpr/export/{entity_id}', '/gdpr/delete/{entity_id}', '/v1/webhooks/config']));
    expect(await undocumentedRoutes(p.url, doc, {}, { 'x-org-id': org, 'x-api-key': `key-${org}` })).toEqual([]);
    expect((await fetch(`${p.url}/risk/health`)).status).toBe(200);
  });
});

describe('validation', () => {
  const bad = async (body: unknown, where: string) => {
    const { c } = fresh();
    const r = await c.check(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(r.body.message).toContain(where);
    expect(Array.isArray(r.body.details.issues)).toBe(true);
  };
  it('one of email, ip or phone is required', () => bad({ context: { action: 'login' } }, 'one of email, ip or phone'));
  it('context.action is required and one of the listed values', async () => {
    await bad({ email: 'a@example.com' }, 'context');
    await bad({ email: 'a@example.com', context: { action: 'withdraw' } }, 'context.action');
  });
  it('ip is IPv4 or IPv6', async () => {
    await bad({ ip: '300.1.1.1', context: { action: 'login' } }, 'ip');
    const { c } = fresh();
    expect((await c.check({ ip: '2001:db8::1', context: { action: 'login' } })).status).toBe(200);
    expect((await c.check({ ip: '192.0.2.200', context: { action: 'login' } })).status).toBe(200);
  });
  it('phone is E.164', async () => {
    await bad({ phone: '020 7946 0018', context: { action: 'login' } }, 'phone');
    await bad({ phone: '+0123456789', context: { action: 'login' } }, 'phone');
  });
  it('email is an address; unknown fields are named', async () => {
    await bad({ email: 'not-an-email', context: { action: 'login' } }, 'email');
    await bad({ email: 'a@example.com', context: { action: 'login' }, emial: 'x' }, 'emial');
  });

  it('whitelist bounds: identifier up to 255, reason 10 to 500, duration_hours 1 to 720', async () => {
    const { c } = fresh();
    const entry = (e: Record<string, unknown>) => ({ entity_type: 'email', identifier: 'a@example.com', reason: 'verified by phone call', verified_by: 'agent-7', verification_method: 'phone_callback', ...e });
    const status = async (e: Record<string, unknown>) => (await c.whitelist(entry(e))).status;
    expect(await status({ identifier: 'x'.repeat(255) })).toBe(201);
    expect(await status({ identifier: 'x'.repeat(256) })).toBe(400);
    expect(await status({ reason: 'x'.repeat(9) })).toBe(400);
    expect(await status({ reason: 'x'.repeat(10) })).toBe(201);
    expect(await status({ reason: 'x'.repeat(500) })).toBe(201);
    expect(await status({ reason: 'x'.repeat(501) })).toBe(400);
    expect(await status({ duration_hours: 0 })).toBe(400);
    expect(await status({ duration_hours: 1 })).toBe(201);
    expect(await status({ duration_hours: 720 })).toBe(201);
    expect(await status({ duration_hours: 721 })).toBe(400);
    expect(await status({ entity_type: 'account' })).toBe(400);
    expect(await status({ verification_method: 'email' })).toBe(400);
    const created = await c.whitelist(entry({}));
    expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(168 * 3_600_000);
  });

  it.each(['', '/risk'])('GET /v1/whitelist lists the entries not removed, paged by limit and cursor (prefix %j)', async (prefix) => {
    const { org } = fresh();
    const c = riskClient(p.url, org, `key-${org}`, prefix);
    const entry = (identifier: string) => ({ entity_type: 'email', identifier, reason: 'verified by phone call', verified_by: 'agent-7', verification_method: 'phone_callback' });
    const ids: string[] = [];
    for (const who of ['a', 'b', 'c', 'd', 'e']) ids.push((await c.whitelist(entry(`${who}@example.com`))).body.id);
    expect((await c.unwhitelist(ids[2]!)).status).toBe(204);
    const seen: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Record<string, any> } = await c.call('GET', `/v1/whitelist?limit=2${cursor ? `&cursor=${cursor}` : ''}`); // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(page.status).toBe(200);
      expect(page.body.entries.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.entries);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen.map((e) => e.id)).toEqual(ids.filter((_, i) => i !== 2).sort());
    expect(seen[0]).toEqual({ id: expect.any(String), entity_type: 'email', identifier: expect.stringMatching(/@example\.com$/), created_at: expect.any(String), expires_at: expect.any(String) });
    expect((await c.call('GET', '/v1/whitelist?limit=0')).status).toBe(400);
    // Another organization's entries are not listed.
    const other = fresh();
    expect((await other.c.call('GET', '/v1/whitelist')).body).toEqual({ entries: [], next_cursor: null });
  });

  it('feedback bounds: notes up to 1000, types and outcomes listed', async () => {
    const { c } = fresh();
    const { body } = await c.check(base());
    const fb = (e: Record<string, unknown>) => c.feedback({ request_id: body.request_id, feedback_type: 'correct', actual_outcome: 'allow', reported_by: 'analyst', ...e });
    expect((await fb({ notes: 'x'.repeat(1000) })).status).toBe(201);
    expect((await fb({ notes: 'x'.repeat(1001) })).status).toBe(400);
    expect((await fb({ feedback_type: 'maybe' })).status).toBe(400);
    expect((await fb({ actual_outcome: 'deny' })).status).toBe(400);
  });
});

describe('checks', () => {
  it('answers the decision with reasons, metadata, and expand details', async () => {
    const { c } = fresh();
    const r = await c.check({ ...base({ email: 'xkqzvbtwpl48213@mailinator.com', ip: KP_IP }), expand: true });
    expect(r.status).toBe(200);
    expect(r.body.decision.reasons).toEqual(['High-risk country: North Korea', 'Disposable email domain', 'Random character pattern detected', 'Long numeric sequence in email']);
    expect(r.body.decision.outcome).toBe('block');
    expect(r.body.decision.score).toBeGreaterThanOrEqual(80);
    expect(r.body.metadata).toMatchObject({ baseline_sessions: 1, weights_version: 0, processing_time_ms: expect.any(Number) });
    expect(r.body.details.signals.map((s: { key: string }) => s.key)).toContain('ip.high_risk_country');
  });

  it('IP reasons from the lists, and the score to outcome mapping', async () => {
    const { c } = fresh();
    const reasons = async (ip: string) => (await c.check({ ip, context: { action: 'default' } })).body.decision;
    expect(await reasons(TOR_IP)).toMatchObject({ reasons: ['Tor exit node detected'], score: 60, outcome: 'review' });
    expect((await reasons('203.0.113.5')).reasons).toEqual(['VPN detected']);
    expect((await reasons('203.0.113.64')).reasons).toEqual(['Proxy detected']);
    expect((await reasons('203.0.113.200')).reasons).toEqual(['Datacenter IP']);
    expect(await reasons('192.0.2.1')).toMatchObject({ reasons: ['Known fraud IP'], outcome: 'review' });
    expect(await reasons('2001:db8:bad::9')).toMatchObject({ reasons: ['Known fraud IP'] });
    expect(await reasons(LONDON_IP)).toMatchObject({ reasons: [], score: 0, outcome: 'allow' });
    const both = (await c.check({ ip: TOR_IP, email: 'x@mailinator.com', context: { action: 'payment' } })).body.decision;
    expect(both).toMatchObject({ outcome: 'block' });
    expect(both.score).toBeGreaterThanOrEqual(80);
  });

  it('phone reasons', async () => {
    const { c } = fresh();
    expect((await c.check({ phone: '+10000000000', context: { action: 'signup' } })).body.decision.reasons).toEqual(['Invalid phone number format']);
    expect((await c.check({ phone: '+445612345678', context: { action: 'signup' } })).body.decision.reasons).toEqual(['VoIP number detected']);
  });

  it('the glass-box answer reveals the signals', async () => {
    const { c } = fresh();
    const r = await c.evalCheck({ ip: TOR_IP, context: { action: 'login' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ eval_mode: true, decision: 'REVIEW', context: { ip_reputation: 'suspicious', network: 'tor', baseline_sessions: 0 }, signals: { biometrics: 'unknown', reasoning: ['Tor exit node detected (+60)'] } });
    expect(r.body.original_response.decision.outcome).toBe('review');
  });

  it('every check lands in ClickHouse through the risk.checks topic', async () => {
    const { org, c } = fresh();
    const { body } = await c.check(base({ ip: TOR_IP }));
    const [row] = await waitFor(() => rows('SELECT outcome, score, reasons, ip FROM risk_checks FINAL WHERE org_id = {org:String} AND request_id = {id:String}', { org, id: body.request_id }), (r) => r.length === 1);
    expect(row).toMatchObject({ outcome: 'review', reasons: ['Tor exit node detected'], ip: TOR_IP });
  });

  it('answers only once the window-store writes of the check are durable', async () => {
    const { c } = fresh();
    const windows = p.platform.windows;
    const synced = windows.synced.bind(windows);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let waiting = 0;
    windows.synced = async () => {
      waiting++;
      await gate;
      await synced();
    };
    try {
      let answered = false;
      const pending = c.check(base()).then((r) => ((answered = true), r));
      await expect.poll(() => waiting, { timeout: 10_000 }).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 100));
      expect(answered).toBe(false);
      release();
      expect((await pending).status).toBe(200);
    } finally {
      windows.synced = synced;
    }
  });
});

describe('whitelist', () => {
  it('short-circuits to allow until it expires; removal answers 204 then 404', async () => {
    const { c } = fresh();
    const body = { ip: TOR_IP, context: { action: 'login', user_id: 'wl-user' } };
    expect((await c.check(body)).body.decision.outcome).toBe('review');
    const entry = await c.whitelist({ entity_type: 'user', identifier: 'wl-user', reason: 'document review passed', duration_hours: 1, verified_by: 'agent', verification_method: 'document_review' });
    expect(entry.status).toBe(201);
    expect((await c.check(body)).body.decision).toMatchObject({ outcome: 'allow', score: 0, reasons: ['Whitelisted user'] });
    clock.advance(3_600_000);
    expect((await c.check(body)).body.decision.outcome).toBe('review');
    clock.advance(-3_600_000);
    expect((await c.check(body)).body.decision.outcome).toBe('allow');
    expect((await c.unwhitelist(entry.body.id)).status).toBe(204);
    expect((await c.check(body)).body.decision.outcome).toBe('review');
    expect((await c.unwhitelist(entry.body.id)).status).toBe(404);
  });
});

describe('feedback', () => {
  it('201 for a known request, 404 for an unknown one; rates per organization are one query', async () => {
    const { org, c } = fresh();
    const { body } = await c.check(base({ ip: TOR_IP }));
    const r = await c.feedback({ request_id: body.request_id, feedback_type: 'false_positive', actual_outcome: 'allow', reported_by: 'analyst', notes: 'customer travelling' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ feedback_id: expect.any(String), received_at: new Date(clock.now()).toISOString() });
    expect((await c.feedback({ request_id: 'no-such-request', feedback_type: 'correct', actual_outcome: 'allow', reported_by: 'analyst' })).status).toBe(404);
    const [rates] = await waitFor(
      () => rows("SELECT count() AS n, countIf(feedback_type = 'false_positive') / count() AS fp_rate FROM risk_feedback FINAL WHERE org_id = {org:String}", { org }),
      (x) => Number(x[0]?.n) === 1,
    );
    expect(rates).toMatchObject({ fp_rate: 1 });
  });
});

describe('weights', () => {
  it('defaults at version 0, each PUT a new version that checks use', async () => {
    const { c } = fresh();
    const first = await c.weights();
    expect(first.body).toMatchObject({ version: 0, thresholds: { block: 80, review: 40, challenge: 60 }, ip: { tor: 60 } });
    const put = await c.putWeights({ config_name: 'strict', ip: { tor: 90 } });
    expect(put.body).toMatchObject({ version: 1, config_name: 'strict', ip: { tor: 90, vpn: 30 } });
    expect((await c.check({ ip: TOR_IP, context: { action: 'default' } })).body).toMatchObject({ decision: { score: 90, outcome: 'block' }, metadata: { weights_version: 1 } });
    expect((await c.putWeights({ ip: { tor: 0 } })).body.version).toBe(2);
    expect((await c.check({ ip: TOR_IP, context: { action: 'default' } })).body.decision.score).toBe(0);
    expect((await c.putWeights({ thresholds: { block: 10, review: 50 } })).status).toBe(400);
    expect((await c.weights()).body.version).toBe(2);
  });
});

describe('weights round-trip', () => {
  const README_FIELDS = ['config_name', 'is_active', 'thresholds', 'ip', 'email', 'phone', 'behavior', 'velocity', 'session', 'continuous_auth', 'fraud_ring', 'features', 'high_risk_countries', 'review_emits_high'];

  it.each(['', '/risk'])('GET answers every field, PUT takes it back unchanged, GET answers the same (prefix %j)', async (prefix) => {
    const { org } = fresh();
    const c = riskClient(p.url, org, `key-${org}`, prefix);
    const first = (await c.weights()).body;
    expect(Object.keys(first).sort()).toEqual([...README_FIELDS, 'version', 'updated_at'].sort());
    expect(first).toMatchObject({ version: 0, updated_at: null, high_risk_countries: null });

    const put = await c.putWeights(first);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ version: 1, defaults_applied: [] });
    const second = (await c.weights()).body;
    expect({ ...second, version: 0, updated_at: null }).toEqual(first);
    expect(second.version).toBe(1);

    // The PUT answer goes back too (its read-only fields ignored).
    expect((await c.putWeights({ ...put.body, config_name: 'again' })).body).toMatchObject({ version: 2, config_name: 'again' });
  });

  it('a stale version is a 409 carrying current_version; no version overwrites; a partial PUT names what it set to defaults', async () => {
    const { c } = fresh();
    const read = (await c.weights()).body;
    expect((await c.putWeights({ ...read, thresholds: { block: 90, review: 40, challenge: 60 } })).body.version).toBe(1);
    const stale = await c.putWeights({ ...read, config_name: 'late' });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: 'version_conflict', current_version: 1 });
    expect((await c.weights()).body).toMatchObject({ version: 1, thresholds: { block: 90 } });

    const partial = await c.putWeights({ thresholds: { block: 95 }, high_risk_countries: ['KP'] });
    expect(partial.status).toBe(200);
    expect(partial.body).toMatchObject({ version: 2, thresholds: { block: 95, review: 40, challenge: 60 }, high_risk_countries: ['KP'] });
    expect(partial.body.defaults_applied).toEqual(expect.arrayContaining(['thresholds.review', 'thresholds.challenge', 'config_name', 'ip', 'review_emits_high']));
    expect(partial.body.defaults_applied).not.toContain('thresholds.block');
    expect(partial.body.defaults_applied).not.toContain('high_risk_countries');
    expect((await c.putWeights({ ...read, colour: 'red' })).status).toBe(400);
  });
});

describe('state over time', () => {
  it('baselines: the first 3 sessions establish it, a later session far from it is reported', async () => {
    const { c } = fresh();
    const session = (i: number, timings: number[]) =>
      c.check(base({ context: { action: 'login', user_id: 'bl', session_id: `s${i}` }, behavior: { keystrokeTimings: timings, timeOnPage: 30_000, mouseMovements: 300 } }));
    const human = [180, 95, 240, 130, 310, 88, 150, 205];
    const counts: number[] = [];
    for (let i = 1; i <= 3; i++) counts.push((await session(i, human)).body.metadata.baseline_sessions);
    expect(counts).toEqual([1, 2, 3]);
    const same = await session(4, human);
    expect(same.body.decision.reasons.filter((r: string) => /deviation|consistency/i.test(r))).toEqual([]);
    const slow = await session(5, human.map((g) => g * 4));
    expect(slow.body.metadata.baseline_sessions).toBe(3);
    expect(slow.body.decision.reasons).toEqual(expect.arrayContaining(['High keystroke deviation: 300% from baseline', expect.stringMatching(/^Biometric deviation \(score: \d+\)$/)]));
  });

  it('impossible travel between two geolocated checks of one user', async () => {
    const { c } = fresh();
    await c.check(base({ ip: LONDON_IP, context: { action: 'login', user_id: 'traveller' } }));
    clock.advance(60 * 60_000);
    const r = await c.check(base({ ip: SYDNEY_IP, context: { action: 'login', user_id: 'traveller' } }));
    expect(r.body.decision.reasons).toEqual(expect.arrayContaining([expect.stringMatching(/^Physically impossible: \d+ km\/h$/), 'New country: Australia']));
  });

  it('velocity per user from the window store', async () => {
    const { c } = fresh();
    await c.putWeights({ velocity: { max_requests: 3 } });
    const reasons: string[][] = [];
    for (let i = 0; i < 4; i++) reasons.push((await c.check(base({ context: { action: 'login', user_id: 'fast' } }))).body.decision.reasons);
    expect(reasons.slice(0, 3).flat().some((r) => r.startsWith('Velocity'))).toBe(false);
    expect(reasons[3]).toContain('Velocity exceeded (4 requests)');
  });

  it('new device, and a device shared by several users', async () => {
    const { c } = fresh();
    const device = (n: number) => ({ user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0', fingerprint: { screen: { width: 1920, height: 1080, colorDepth: 24 }, timezone: 'Europe/Rome', canvas: `c${n}` } });
    await c.check(base({ device: device(1), context: { action: 'login', user_id: 'dev-a' } }));
    const second = await c.check(base({ device: device(2), context: { action: 'login', user_id: 'dev-a' } }));
    expect(second.body.decision.reasons).toEqual(expect.arrayContaining(['New device detected', 'Device added within 24h of another (fraud ring pattern)']));
    let last;
    for (const u of ['dev-b', 'dev-c', 'dev-d']) last = await c.check(base({ device: device(2), context: { action: 'login', user_id: u } }));
    expect(last!.body.decision.reasons).toEqual(expect.arrayContaining(['Suspicious device sharing pattern', expect.stringMatching(/^High fraud ring score: \d+\/100$/)]));
  });

  it('sessions of a user', async () => {
    const { c } = fresh();
    await c.check(base({ ip: LONDON_IP, context: { action: 'login', user_id: 'sess', session_id: 'a' } }));
    await c.check(base({ ip: LONDON_IP, context: { action: 'payment', user_id: 'sess', session_id: 'a' } }));
    await c.check(base({ context: { action: 'login', user_id: 'sess', session_id: 'b' } }));
    const r = await waitFor(() => c.sessions('sess'), (x) => x.body.sessions.length === 2);
    expect(r.body.sessions.find((s: { session_id: string }) => s.session_id === 'a')).toMatchObject({ checks: 2, ip: LONDON_IP, country: 'GB' });
  });
});

describe('challenges', () => {
  it('issue with dev_code and a notification; a wrong code is refused, the right one verifies once', async () => {
    const { org, c } = fresh();
    const { body } = await c.check(base({ ip: TOR_IP }));
    const seen: ConsumedMessage[] = [];
    const issued = await c.issue({ challenge_type: 'email_otp', email: 'anna.rossi@example.com', request_id: body.request_id });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ challenge_id: expect.any(String), type: 'email_otp', dev_code: expect.stringMatching(/^\d{6}$/) });
    const sub = await p.platform.bus.subscribe({ groupId: `t-otp-${org}`, topics: ['notifications.otp'], eachBatch: async (b) => void seen.push(...b.messages) });
    await waitFor(async () => seen.filter((m) => JSON.parse(m.value.toString()).challenge_id === issued.body.challenge_id).length, (n) => n === 1);
    await sub.stop();
    const [stored] = await rows('SELECT code_hash FROM risk_challenges WHERE challenge_id = {id:String}', { id: issued.body.challenge_id });
    expect(String(stored!.code_hash)).not.toContain(issued.body.dev_code);
    const wrong = issued.body.dev_code === '000000' ? '000001' : '000000';
    expect(await c.verify({ challenge_id: issued.body.challenge_id, code: wrong })).toEqual({ status: 400, body: { verified: false, error: 'invalid_code', reason: 'mismatch', message: 'wrong code: 4 attempts left', attempts_left: 4 } });
    expect(await c.verify({ challenge_id: issued.body.challenge_id, code: issued.body.dev_code })).toEqual({ status: 200, body: { verified: true, decision: { outcome: 'allow', reasons: ['Challenge verified'] } } });
    expect((await c.verify({ challenge_id: issued.body.challenge_id, code: issued.body.dev_code })).body).toMatchObject({ verified: false, error: 'invalid_code', reason: 'used', message: 'the code was already used' });
    await waitFor(() => rows('SELECT outcome FROM risk_overrides FINAL WHERE org_id = {org:String} AND request_id = {id:String}', { org, id: body.request_id }), (r) => r.length === 1);
  });

  it('expire after 10 minutes, allow 5 attempts, need a known request and the right destination field', async () => {
    const { c } = fresh();
    const { body } = await c.check(base());
    const issue = () => c.issue({ challenge_type: 'phone_otp', phone: '+447911123456', request_id: body.request_id });
    const late = (await issue()).body;
    clock.advance(10 * 60_000);
    expect((await c.verify({ challenge_id: late.challenge_id, code: late.dev_code })).body).toMatchObject({ verified: false, error: 'invalid_code', reason: 'expired', message: expect.stringMatching(/expired/) });
    clock.advance(-10 * 60_000);
    // Another check: with the clock set back, a new challenge of the first would be older than the late one it replaces.
    const { body: second } = await c.check(base());
    const tried = (await c.issue({ challenge_type: 'phone_otp', phone: '+447911123456', request_id: second.request_id })).body;
    const wrong = tried.dev_code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) expect((await c.verify({ challenge_id: tried.challenge_id, code: wrong })).status).toBe(400);
    expect((await c.verify({ challenge_id: tried.challenge_id, code: tried.dev_code })).body).toMatchObject({ verified: false, error: 'invalid_code', reason: 'exhausted', attempts_left: 0 });
    expect((await c.issue({ challenge_type: 'phone_otp', phone: '+447911123456', request_id: 'unknown' })).status).toBe(404);
    expect((await c.issue({ challenge_type: 'phone_otp', email: 'a@example.com', request_id: body.request_id })).status).toBe(400);
    expect((await c.verify({ challenge_id: tried.challenge_id, code: '12345' })).status).toBe(400);
  });
});

describe('webhook configuration and events', () => {
  it('stores the configuration without ever returning the secret; block checks emit risk.high on workflow.events', async () => {
    const { org, c } = fresh();
    expect((await c.webhookConfig()).body).toEqual({ url: null, events: [], enabled: false, has_secret: false });
    const put = await c.putWebhookConfig({ url: 'https://hooks.example.com/risk', secret: 'whsec_0123456789abcdef', events: ['risk.high'], enabled: true });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ url: 'https://hooks.example.com/risk', events: ['risk.high'], enabled: true, has_secret: true, updated_at: expect.any(String) });
    expect(JSON.stringify((await c.webhookConfig()).body)).not.toContain('whsec_');
    expect((await c.putWebhookConfig({ url: 'ftp://x', events: ['risk.high'] })).status).toBe(400);
    const blocked = await c.check({ ip: TOR_IP, email: 'x@mailinator.com', context: { action: 'payment', user_id: 'hooked' } });
    expect(blocked.body.decision.outcome).toBe('block');
    await c.check({ ip: LONDON_IP, context: { action: 'login', user_id: 'hooked' } });
    const seen: Record<string, any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    const sub = await p.platform.bus.subscribe({ groupId: `t-wf-${org}`, topics: ['workflow.events'], eachBatch: async (b) => void seen.push(...b.messages.map((m) => JSON.parse(m.value.toString()))) });
    const mine = await waitFor(async () => seen.filter((e) => e.org_id === org), (x) => x.length >= 1);
    await sub.stop();
    expect(mine).toEqual([{ org_id: org, event: 'risk.high', payload: expect.objectContaining({ request_id: blocked.body.request_id, outcome: 'block', action: 'payment', user_id: 'hooked' }) }]);
  });
});

describe('GDPR and tenant isolation', () => {
  it("export returns the user's data; delete leaves nothing in any store and the baseline starts again", async () => {
    const { org, c } = fresh();
    const user = 'gdpr-user';
    const first = await c.check(base({ ip: LONDON_IP, phone: '+447911123456', context: { action: 'login', user_id: user, session_id: 'g1' }, behavior: { keystrokeTimings: [100, 150, 120] } }));
    await c.check(base({ context: { action: 'login', user_id: user, session_id: 'g2' } }));
    await c.feedback({ request_id: first.body.request_id, feedback_type: 'correct', actual_outcome: 'allow', reported_by: 'analyst' });
    await c.issue({ challenge_type: 'email_otp', email: 'anna.rossi@example.com', request_id: first.body.request_id });
    await c.whitelist({ entity_type: 'email', identifier: 'anna.rossi@example.com', reason: 'known customer, verified', verified_by: 'agent', verification_method: 'manual_review' });
    await waitFor(() => checksOf(org, user), (r) => r.length === 2);
    await waitFor(() => rows('SELECT 1 FROM risk_feedback WHERE org_id = {org:String}', { org }), (r) => r.length === 1);

    const exported = (await c.exportUser(user)).body;
    expect(exported.checks).toHaveLength(2);
    expect(exported).toMatchObject({ entity_id: user, feedback: [expect.anything()], challenges: [expect.anything()], whitelist: [expect.objectContaining({ identifier: 'anna.rossi@example.com' })], state: { sessions: 2, baseline: { sessions: 2 } } });

    const isolated = riskClient(p.url, ORGS.at(-1)!, `key-${ORGS.at(-1)}`);
    expect((await isolated.exportUser(user)).body.checks).toEqual([]);
    expect((await isolated.feedback({ request_id: first.body.request_id, feedback_type: 'correct', actual_outcome: 'allow', reported_by: 'x' })).status).toBe(404);
    expect((await isolated.unwhitelist(exported.whitelist[0].id)).status).toBe(404);
    await isolated.deleteUser(user);
    expect(await checksOf(org, user)).toHaveLength(2);

    const deleted = await c.deleteUser(user);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ entity_id: user, deleted_at: new Date(clock.now()).toISOString() });
    for (const table of ['risk_checks', 'risk_feedback', 'risk_challenges', 'risk_whitelist', 'risk_overrides']) {
      expect(await rows(`SELECT * FROM ${table} WHERE org_id = {org:String}`, { org }), table).toEqual([]);
    }
    expect(await p.platform.windows.read(userEntity(org, user), [{ kind: 'max', series: 'seen' }, { kind: 'sum', series: 'bn', floor: 0 }])).toEqual([null, 0]);
    const after = (await c.exportUser(user)).body;
    expect(after).toMatchObject({ checks: [], feedback: [], challenges: [], whitelist: [], devices: [], state: { sessions: 0, last_seen: null } });
    const again = await c.check(base({ context: { action: 'login', user_id: user, session_id: 'g3' } }));
    expect(again.body.metadata.baseline_sessions).toBe(1);
    expect((await c.check({ ...base(), context: { action: 'login' } })).body.decision.reasons).not.toContain('Whitelisted email');
  });

  it('records of a deleted user still in the topic are dropped, not written back', async () => {
    const { org, c } = fresh();
    await c.check(base({ context: { action: 'login', user_id: 'late' } }));
    await waitFor(() => checksOf(org, 'late'), (r) => r.length === 1);
    await c.deleteUser('late');
    const record = (user: string, id: string) => ({ kind: 'check', org_id: org, request_id: id, user_id: user, created_at: new Date(clock.now() - 1000).toISOString(), action: 'login', outcome: 'allow', score: 0, reasons: [], payload: {} });
    const send = async (r: Record<string, unknown>) => p.platform.bus.send('risk.checks', [{ key: org, value: Buffer.from(JSON.stringify(r)) }]);
    await send(record('late', 'in-flight'));
    await send(record('someone-else', 'sentinel'));
    await waitFor(() => checksOf(org, 'someone-else'), (r) => r.length === 1);
    expect(await checksOf(org, 'late')).toEqual([]);
  });
});
