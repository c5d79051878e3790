import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoService } from '../services/video.js';
import { manualClock } from '../infra/clock.js';
import { principalCreatedSchema, principalSchema, sessionTokenSchema } from '../schemas/http/video-auth.js';
import { startTestProcess } from './support/process.js';

/**
 * The video service's credentials end to end on embedded defaults: deployment keys, database
 * principals, bearer tokens, scopes, OAuth client credentials, demo auth and the 501s.
 */

const SECRET = 'video-auth-test-signing-secret';
const DEMO_ORIGIN = 'http://demo.example';
type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Running = Awaited<ReturnType<typeof startTestProcess>>;

/** Time of the main process: real time plus an offset a test moves forward to expire tokens. */
let offset = 0;
const clock = { now: () => Date.now() + offset };
let p: Running;
let noSecret: Running;

beforeAll(async () => {
  [p, noSecret] = await Promise.all([
    startTestProcess({ services: [videoService], clock, env: { BEARER_SIGNING_SECRET: SECRET, VIDEO_DEMO_ORIGINS: `${DEMO_ORIGIN},http://other.example` } }),
    startTestProcess({ services: [videoService] }),
  ]);
});
afterAll(async () => {
  await Promise.all([p?.stop(), noSecret?.stop()]);
});

interface Call {
  key?: string;
  bearer?: string;
  body?: unknown;
  headers?: Record<string, string>;
  on?: Running;
}

async function call(method: string, path: string, opts: Call = {}): Promise<{ status: number; body: Body; headers: Headers }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${(opts.on ?? p).url}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  return { status: res.status, body: (await res.json()) as Body, headers: res.headers };
}

async function createPrincipal(scopes: string[], key = 'key_a', on: Running = p): Promise<{ id: string; apiKey: string }> {
  const r = await call('POST', '/api/principals', { on, key, body: { name: `p-${scopes.join('+')}`, scopes } });
  expect(r.status).toBe(201);
  return { id: r.body.principal.id, apiKey: r.body.apiKey };
}

async function token(cred: Call, body: unknown = {}): Promise<string> {
  const r = await call('POST', '/api/session-token', { ...cred, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.accessToken as string;
}

const compile = (cred: Call) => call('POST', '/api/compile', { ...cred, body: { source: 'film "A"\nscene "s" 1s\n  title "x"' } });

function form(fields: Record<string, string>, on: Running = p, headers: Record<string, string> = {}) {
  return fetch(`${on.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Body, headers: res.headers }));
}

describe('x-api-key credentials', () => {
  it('a deployment key carries every scope; a missing or unknown key is 401 with a bearer challenge', async () => {
    expect((await compile({ key: 'key_a' })).status).toBe(200);
    for (const cred of [{}, { key: 'nope' }]) {
      const r = await compile(cred);
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('unauthorized');
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource"/);
    }
  });

  it('a database principal answers its key once, is stored only as a hash and acts with its own scopes', async () => {
    const r = await call('POST', '/api/principals', { key: 'key_a', body: { name: 'reader', scopes: ['render:read'] } });
    expect(r.status).toBe(201);
    const created = principalCreatedSchema.parse(r.body);
    expect(created.principal).toMatchObject({ orgId: 'org_a', type: 'api_key', name: 'reader', scopes: ['render:read'], disabled: false });
    const listed = await call('GET', '/api/principals', { key: 'key_a' });
    expect(listed.body.principals.map((x: Body) => x.id)).toContain(created.principal.id);
    expect(JSON.stringify(listed.body)).not.toContain(created.apiKey);
    // The key is nowhere in the table, only its SHA-256 digest.
    const rows = await p.platform.analytics.query({ query: 'SELECT * FROM video_principals', format: 'JSONEachRow' });
    const stored = JSON.stringify(await rows.json());
    expect(stored).toContain(created.principal.id);
    expect(stored).not.toContain(created.apiKey);

    expect((await call('GET', '/api/health', { key: created.apiKey })).body).toMatchObject({ status: 'ok', orgId: 'org_a' });
    const refused = await compile({ key: created.apiKey });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('this credential lacks the scope render:write');
  });

  it('a principal cannot be created with scopes its creator lacks, nor with unknown scopes', async () => {
    const reader = await createPrincipal(['render:read', 'principals:admin']);
    const wider = await call('POST', '/api/principals', { key: reader.apiKey, body: { name: 'x', scopes: ['render:read', 'render:write'] } });
    expect(wider.status).toBe(403);
    expect(wider.body.message).toMatch(/render:write/);
    const unknown = await call('POST', '/api/principals', { key: 'key_a', body: { name: 'x', scopes: ['everything'] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^invalid principal: scopes\[0\]/);
  });

  it('a disabled principal is 401 at once, is kept with who disabled it, and the audit records both changes', async () => {
    const writer = await createPrincipal(['render:write']);
    expect((await compile({ key: writer.apiKey })).status).toBe(200);
    const d = await call('DELETE', `/api/principals/${writer.id}`, { key: 'key_a' });
    expect(d.status).toBe(200);
    expect(principalSchema.parse(d.body)).toMatchObject({ id: writer.id, disabled: true, disabledBy: expect.stringMatching(/^key_[0-9a-f]{16}$/) });
    const after = await compile({ key: writer.apiKey });
    expect(after.status).toBe(401);
    expect(after.body.message).toBe(`principal ${writer.id} is disabled`);
    const listed = await call('GET', '/api/principals', { key: 'key_a' });
    expect(listed.body.principals.find((x: Body) => x.id === writer.id)).toMatchObject({ disabled: true });
    const audit = await p.platform.analytics.query({
      query: 'SELECT action FROM video_principal_audit WHERE principal_id = {id:String} ORDER BY at',
      query_params: { id: writer.id },
      format: 'JSONEachRow',
    });
    expect(await audit.json()).toEqual([{ action: 'created' }, { action: 'disabled' }]);
  });

  it('a disable made by another process (a row written straight to the table) is seen within the cache time', async () => {
    const writer = await createPrincipal(['render:write']);
    expect((await compile({ key: writer.apiKey })).status).toBe(200);
    const { principalsMigration, createPrincipalStore, CACHE_MS } = await import('../pipelines/video/principal-store.js');
    expect(principalsMigration.id).toBe('video-001-principals');
    const other = createPrincipalStore({ analytics: p.platform.analytics, clock });
    await other.disable('org_a', writer.id, 'another-process');
    offset += CACHE_MS + 1;
    expect((await compile({ key: writer.apiKey })).status).toBe(401);
  });
});

describe('principal management', () => {
  it('needs principals:admin, and no principal lists, creates, changes or disables one holding scopes it lacks', async () => {
    const reader = await createPrincipal(['render:read']);
    for (const [method, path, body] of [
      ['GET', '/api/principals', undefined],
      ['POST', '/api/principals', { name: 'x', scopes: ['render:read'] }],
      ['GET', `/api/principals/${reader.id}`, undefined],
      ['PATCH', `/api/principals/${reader.id}`, { name: 'y' }],
      ['DELETE', `/api/principals/${reader.id}`, undefined],
    ] as const) {
      const r = await call(method, path, { key: reader.apiKey, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.message).toBe('this credential lacks the scope principals:admin');
    }
    const admin = await createPrincipal(['render:read', 'principals:admin']);
    const writer = await createPrincipal(['render:write']);
    const disable = await call('DELETE', `/api/principals/${writer.id}`, { key: admin.apiKey });
    expect(disable.status).toBe(403);
    expect(disable.body.message).toBe(`disabling principal ${writer.id} needs the caller to hold render:write`);
    const widen = await call('PATCH', `/api/principals/${reader.id}`, { key: admin.apiKey, body: { scopes: ['render:write'] } });
    expect(widen.status).toBe(403);
    expect(widen.body.message).toMatch(/needs the caller to hold render:write$/);
    const create = await call('POST', '/api/principals', { key: admin.apiKey, body: { name: 'w', scopes: ['render:write'] } });
    expect(create.status).toBe(403);
    expect((await compile({ key: writer.apiKey })).status).toBe(200);
    // Within its own scopes it manages: a render:read principal it may disable.
    expect((await call('DELETE', `/api/principals/${reader.id}`, { key: admin.apiKey })).status).toBe(200);
  });

  it('round-trips: what GET answers, PATCH takes back unchanged; name and scopes change, read-only fields are ignored', async () => {
    const target = await createPrincipal(['render:read', 'templates:read']);
    const got = await call('GET', `/api/principals/${target.id}`, { key: 'key_a' });
    expect(got.status).toBe(200);
    expect(JSON.stringify(got.body)).not.toContain(target.apiKey);
    const same = await call('PATCH', `/api/principals/${target.id}`, { key: 'key_a', body: got.body });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body).toEqual(got.body);
    expect((await call('GET', `/api/principals/${target.id}`, { key: 'key_a' })).body).toEqual(got.body);

    const changed = await call('PATCH', `/api/principals/${target.id}`, { key: 'key_a', body: { ...got.body, name: 'renamed', scopes: ['render:read'], orgId: 'org_b', disabled: true } });
    expect(changed.body).toEqual({ ...got.body, name: 'renamed', scopes: ['render:read'] });
    expect((await call('GET', `/api/principals/${target.id}`, { key: 'key_a' })).body).toEqual(changed.body);
    expect((await call('GET', '/api/templates', { key: target.apiKey })).status).toBe(403);
    for (const [body, where] of [
      [{ name: '' }, /name/],
      [{ scopes: [] }, /scopes/],
      [{ apiKey: 'x' }, /apiKey/],
    ] as const) {
      const r = await call('PATCH', `/api/principals/${target.id}`, { key: 'key_a', body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(where);
    }
    expect((await call('GET', `/api/principals/${target.id}`, { key: 'key_b' })).status).toBe(404);
    expect((await call('PATCH', `/api/principals/${target.id}`, { key: 'key_b', body: { name: 'x' } })).status).toBe(404);
  });
});

describe('tokens die with their principal', () => {
  it('session and OAuth tokens of a disabled principal are refused at once in this process', async () => {
    const writer = await createPrincipal(['render:write']);
    const session = await token({ key: writer.apiKey });
    const oauth = (await form({ grant_type: 'client_credentials', client_id: writer.id, client_secret: writer.apiKey })).body.access_token as string;
    const renewed = await token({ bearer: session });
    for (const t of [session, oauth, renewed]) expect((await compile({ bearer: t })).status).toBe(200);
    expect((await call('DELETE', `/api/principals/${writer.id}`, { key: 'key_a' })).status).toBe(200);
    for (const t of [session, oauth, renewed]) {
      const r = await compile({ bearer: t });
      expect(r.status).toBe(401);
      expect(r.body.message).toBe(`principal ${writer.id} is disabled; its tokens are refused`);
      expect((await call('POST', '/api/session-token', { bearer: t, body: {} })).status).toBe(401);
    }
  });

  it('a disable by another process is seen within CACHE_MS', async () => {
    const writer = await createPrincipal(['render:write']);
    const session = await token({ key: writer.apiKey });
    expect((await compile({ bearer: session })).status).toBe(200);
    const { createPrincipalStore, CACHE_MS } = await import('../pipelines/video/principal-store.js');
    await createPrincipalStore({ analytics: p.platform.analytics, clock }).disable('org_a', writer.id, 'another-process');
    offset += CACHE_MS;
    expect((await compile({ bearer: session })).status).toBe(401);
  });

  it('a bearer token cannot mint a token that outlives it', async () => {
    const short = await call('POST', '/api/session-token', { key: 'key_a', body: { ttlSeconds: 120 } });
    const minted = await call('POST', '/api/session-token', { bearer: short.body.accessToken, body: { ttlSeconds: 86_400 } });
    expect(minted.status).toBe(201);
    expect(minted.body.expiresAt).toBe(short.body.expiresAt);
    offset += 121_000;
    expect((await compile({ bearer: minted.body.accessToken })).status).toBe(401);
  });
});

describe('tenant isolation', () => {
  it('principals, tokens and disables stay inside their organization; x-org-id is ignored', async () => {
    const a = await createPrincipal(['render:write'], 'key_a');
    const b = await createPrincipal(['render:write', 'principals:admin'], 'key_b');
    const listB = await call('GET', '/api/principals', { key: 'key_b', headers: { 'x-org-id': 'org_a' } });
    expect(listB.body.principals.map((x: Body) => x.orgId)).toEqual(listB.body.principals.map(() => 'org_b'));
    expect(listB.body.principals.map((x: Body) => x.id)).not.toContain(a.id);
    // org_b cannot disable org_a's principal, even naming org_a in x-org-id.
    const cross = await call('DELETE', `/api/principals/${a.id}`, { key: b.apiKey, headers: { 'x-org-id': 'org_a' } });
    expect(cross.status).toBe(404);
    expect((await compile({ key: a.apiKey })).status).toBe(200);
    const t = await token({ key: b.apiKey });
    expect((await call('GET', '/api/health', { bearer: t, headers: { 'x-org-id': 'org_a' } })).body.orgId).toBe('org_b');
  });
});

describe('bearer session tokens', () => {
  it('carry the org, the principal, a subset of the scopes and the expiry', async () => {
    const r = await call('POST', '/api/session-token', { key: 'key_a', body: { ttlSeconds: 120, scopes: ['render:read'] } });
    expect(r.status).toBe(201);
    const t = sessionTokenSchema.parse(r.body);
    expect(t).toMatchObject({ tokenType: 'Bearer', orgId: 'org_a', principalId: expect.stringMatching(/^key_/), scopes: ['render:read'] });
    expect(Date.parse(t.expiresAt) - Date.parse(t.issuedAt)).toBe(120_000);
    expect((await call('GET', '/api/health', { bearer: t.accessToken })).body).toMatchObject({ status: 'ok', orgId: 'org_a' });
    const narrow = await compile({ bearer: t.accessToken });
    expect(narrow.status).toBe(403);
    expect(narrow.body.message).toBe('this credential lacks the scope render:write');
  });

  it('default to every scope of the caller for 900 seconds', async () => {
    const writer = await createPrincipal(['render:write', 'templates:read']);
    const r = await call('POST', '/api/session-token', { key: writer.apiKey, body: {} });
    expect(r.body.scopes).toEqual(['render:write', 'templates:read']);
    expect(r.body.principalId).toBe(writer.id);
    expect(Date.parse(r.body.expiresAt) - Date.parse(r.body.issuedAt)).toBe(900_000);
    expect((await compile({ bearer: r.body.accessToken })).status).toBe(200);
  });

  it("refuses scopes beyond the caller's (403), and ttl or scopes out of bounds (400)", async () => {
    const reader = await createPrincipal(['render:read']);
    const wider = await call('POST', '/api/session-token', { key: reader.apiKey, body: { scopes: ['render:write'] } });
    expect(wider.status).toBe(403);
    expect(wider.body.message).toBe("the requested scopes exceed the caller's: render:write");
    // A token cannot widen itself either.
    const t = await token({ key: 'key_a' }, { scopes: ['render:read'] });
    expect((await call('POST', '/api/session-token', { bearer: t, body: { scopes: ['render:write'] } })).status).toBe(403);
    for (const [body, where] of [
      [{ ttlSeconds: 59 }, /ttlSeconds/],
      [{ ttlSeconds: 86_401 }, /ttlSeconds/],
      [{ ttlSeconds: 1.5 }, /ttlSeconds/],
      [{ scopes: ['admin'] }, /scopes\[0\]/],
    ] as const) {
      const r = await call('POST', '/api/session-token', { key: 'key_a', body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.message).toMatch(where);
    }
  });

  it('expired, tampered, foreign-secret and malformed tokens are 401', async () => {
    const t = await token({ key: 'key_a' }, { ttlSeconds: 60 });
    expect((await compile({ bearer: t })).status).toBe(200);
    const [h, payload, sig] = t.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const widened = Buffer.from(JSON.stringify({ ...claims, org: 'org_b' })).toString('base64url');
    const flipped = `${sig!.slice(0, -2)}${sig!.endsWith('AA') ? 'BA' : 'AA'}`;
    const { bearerTokens } = await import('../api/video/auth/bearer-token.js');
    const foreign = (await bearerTokens('another-secret-of-16+chars', clock.now).sign({ orgId: 'org_a', principalId: 'x', scopes: ['render:write'] }, 60)).token;
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    for (const bad of [`${h}.${widened}.${sig}`, `${h}.${payload}.${flipped}`, foreign, unsigned, 'not-a-token']) {
      const r = await compile({ bearer: bad });
      expect(r.status, bad).toBe(401);
      expect(r.body.message).toBe('the bearer token is expired, malformed or not signed by this service');
    }
    expect((await call('POST', '/api/compile', { headers: { authorization: `Basic ${t}` }, body: { source: 'x' } })).status).toBe(401);
    offset += 61_000;
    expect((await compile({ bearer: t })).status).toBe(401);
  });

  it('a bearer token may not manage principals (403)', async () => {
    const t = await token({ key: 'key_a' });
    for (const [method, path, body] of [
      ['GET', '/api/principals', undefined],
      ['POST', '/api/principals', { name: 'x', scopes: ['render:read'] }],
      ['DELETE', '/api/principals/prn_x', undefined],
    ] as const) {
      const r = await call(method, path, { bearer: t, body });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.message).toMatch(/needs an API key/);
    }
  });
});

describe('OAuth client credentials', () => {
  it('publishes protected-resource and authorization-server metadata', async () => {
    const base = p.url;
    const pr = await call('GET', '/.well-known/oauth-protected-resource');
    expect(pr.body).toMatchObject({ resource: base, authorization_servers: [base], bearer_methods_supported: ['header'], scopes_supported: expect.arrayContaining(['render:write']) });
    const mcp = await call('GET', '/.well-known/oauth-protected-resource/api/mcp');
    expect(mcp.body.resource).toBe(`${base}/api/mcp`);
    const as = await call('GET', '/.well-known/oauth-authorization-server');
    expect(as.body).toMatchObject({ issuer: base, token_endpoint: `${base}/oauth/token`, grant_types_supported: ['client_credentials'] });
  });

  it('issues a token for a principal, with its scopes or a requested subset, by form or HTTP Basic', async () => {
    const c = await createPrincipal(['render:write', 'render:read']);
    const r = await form({ grant_type: 'client_credentials', client_id: c.id, client_secret: c.apiKey, scope: 'render:read' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900, scope: 'render:read' });
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect((await compile({ bearer: r.body.access_token })).status).toBe(403);
    const basic = Buffer.from(`${c.id}:${encodeURIComponent(c.apiKey)}`).toString('base64');
    const all = await form({ grant_type: 'client_credentials' }, p, { authorization: `Basic ${basic}` });
    expect(all.body.scope).toBe('render:write render:read');
    expect((await compile({ bearer: all.body.access_token })).status).toBe(200);
  });

  it('answers RFC 6749 errors', async () => {
    const c = await createPrincipal(['render:read']);
    const ok = { grant_type: 'client_credentials', client_id: c.id, client_secret: c.apiKey };
    const cases: [Record<string, string>, number, string][] = [
      [{ client_id: c.id, client_secret: c.apiKey }, 400, 'invalid_request'],
      [{ ...ok, grant_type: 'password' }, 400, 'unsupported_grant_type'],
      [{ grant_type: 'client_credentials', client_id: c.id }, 400, 'invalid_request'],
      [{ ...ok, client_secret: 'wrong' }, 401, 'invalid_client'],
      [{ ...ok, client_id: 'prn_other' }, 401, 'invalid_client'],
      [{ ...ok, scope: 'render:write' }, 400, 'invalid_scope'],
      [{ ...ok, scope: 'root' }, 400, 'invalid_scope'],
    ];
    for (const [fields, status, error] of cases) {
      const r = await form(fields);
      expect(r.status, JSON.stringify(fields)).toBe(status);
      expect(r.body).toEqual({ error, error_description: expect.any(String) });
    }
    // A deployment key is not an OAuth client; a JSON body is not a form.
    expect((await form({ grant_type: 'client_credentials', client_id: 'org_a', client_secret: 'key_a' })).body.error).toBe('invalid_client');
    const json = await call('POST', '/oauth/token', { body: ok });
    expect(json.body.error).toBe('invalid_request');
    await call('DELETE', `/api/principals/${c.id}`, { key: 'key_a' });
    const disabled = await form(ok);
    expect(disabled.status).toBe(401);
    expect(disabled.body.error_description).toBe(`client ${c.id} is disabled`);
  });
});

describe('without BEARER_SIGNING_SECRET', () => {
  it('session tokens, the token endpoint, the authorization server and demo auth answer 501; API keys still work', async () => {
    const st = await call('POST', '/api/session-token', { on: noSecret, key: 'key_a', body: {} });
    expect(st.status).toBe(501);
    expect(st.body.message).toMatch(/BEARER_SIGNING_SECRET/);
    const oauth = await form({ grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' }, noSecret);
    expect(oauth).toMatchObject({ status: 501, body: { error: 'server_error' } });
    expect((await call('GET', '/.well-known/oauth-authorization-server', { on: noSecret })).status).toBe(501);
    expect((await call('GET', '/.well-known/oauth-protected-resource', { on: noSecret })).body.authorization_servers).toEqual([]);
    const created = await call('POST', '/api/principals', { on: noSecret, key: 'key_a', body: { name: 'n', scopes: ['render:write'] } });
    expect(created.status).toBe(201);
    expect((await compile({ on: noSecret, key: created.body.apiKey })).status).toBe(200);
    const bearer = await compile({ on: noSecret, bearer: 'anything' });
    expect(bearer.status).toBe(401);
    expect(bearer.body.message).toMatch(/not enabled/);
  });
});

/** node:http, because fetch may not set Host: the demo check compares Origin with the Host the request came to. */
function demoSession(headers: Record<string, string>): Promise<{ status: number; body: Body }> {
  const url = new URL(p.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: '/demo/session', method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('same-origin demo auth', () => {
  it('the demo page gets a demo-org token from an allowed same origin; the token compiles but cannot manage principals', async () => {
    const page = await fetch(`${p.url}/demo`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("fetch('/demo/session'");
    const r = await demoSession({ host: 'demo.example', origin: DEMO_ORIGIN, 'sec-fetch-site': 'same-origin' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ orgId: 'demo', principalId: 'demo', scopes: ['render:read', 'render:write', 'templates:read'] });
    expect((await compile({ bearer: r.body.accessToken })).status).toBe(200);
    expect((await call('GET', '/api/principals', { bearer: r.body.accessToken })).status).toBe(403);
  });

  it('refuses everything else', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ host: 'demo.example' }, /no Origin/],
      [{ host: 'evil.example', origin: 'http://evil.example' }, /not on VIDEO_DEMO_ORIGINS/],
      [{ host: 'demo.example', origin: 'http://other.example' }, /not this server's own origin/],
      [{ host: 'demo.example', origin: DEMO_ORIGIN, 'sec-fetch-site': 'cross-site' }, /Sec-Fetch-Site is cross-site/],
    ];
    for (const [headers, why] of cases) {
      const r = await demoSession(headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(r.body.message).toMatch(why);
    }
  });
});

describe('rate limits', () => {
  it('principal and bearer callers are limited per principal: its tokens share its allowance', async () => {
    const limited = await startTestProcess({ services: [videoService], clock: manualClock(Date.UTC(2026, 0, 1)), env: { BEARER_SIGNING_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '4' } });
    try {
      const c = await createPrincipal(['render:write'], 'key_a', limited);
      const t = await call('POST', '/api/session-token', { on: limited, key: c.apiKey, body: {} }); // 1
      expect(t.status).toBe(201);
      expect((await compile({ on: limited, key: c.apiKey })).status).toBe(200); // 2
      expect((await compile({ on: limited, bearer: t.body.accessToken })).status).toBe(200); // 3
      expect((await compile({ on: limited, key: c.apiKey })).status).toBe(200); // 4
      const over = await compile({ on: limited, bearer: t.body.accessToken });
      expect(over.status).toBe(429);
      expect(over.body.message).toMatch(new RegExp(`principal ${c.id} made more than 4 requests`));
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another principal of the same organization has its own allowance.
      const other = await createPrincipal(['render:write'], 'key_a', limited);
      expect((await compile({ on: limited, key: other.apiKey })).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe('OpenAPI document', () => {
  it('names both auth schemes, marks public routes, the API-key-only routes and each route scope', async () => {
    const doc = (await (await fetch(`${p.url}/api/openapi.json`)).json()) as Body;
    expect(doc.components.securitySchemes).toEqual({
      XApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    });
    const op = (path: string, method: string) => doc.paths[path][method];
    expect(op('/api/compile', 'post')).toMatchObject({ security: [{ XApiKey: [] }, { BearerAuth: [] }], 'x-required-scope': 'render:write', 'x-public': false });
    for (const [path, method] of [['/api/principals', 'get'], ['/api/principals', 'post'], ['/api/principals/{id}', 'delete']]) {
      expect(op(path!, method!).security, `${method} ${path}`).toEqual([{ XApiKey: [] }]);
    }
    for (const [path, method] of [['/oauth/token', 'post'], ['/.well-known/oauth-authorization-server', 'get'], ['/demo/session', 'post']]) {
      expect(op(path!, method!), `${method} ${path}`).toMatchObject({ security: [], 'x-public': true });
    }
    expect(op('/oauth/token', 'post').requestBody.content).toHaveProperty('application/x-www-form-urlencoded');
    expect(op('/api/session-token', 'post').requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SessionTokenRequest' });
    expect(doc.components.schemas.Principal.required).toEqual(expect.arrayContaining(['id', 'orgId', 'type', 'name', 'scopes', 'disabled', 'createdAt']));
  });
});

describe('scopes and organizations on the render-side routes', () => {
  it('each route asks its own scope of a token, and a token sees only its own organization', async () => {
    const template = { name: 'scoped-card', source: 'film "S"\nscene "a" 1s\n  title "x"' };
    expect((await call('POST', '/api/templates', { key: 'key_a', body: template })).status).toBeLessThan(300);
    const reader = await token({ key: 'key_a' }, { scopes: ['templates:read'] });
    expect((await call('GET', '/api/templates/scoped-card', { bearer: reader })).status).toBe(200);
    const write = await call('POST', '/api/templates', { bearer: reader, body: { ...template, name: 'other' } });
    expect(write.status).toBe(403);
    expect(write.body.message).toBe('this credential lacks the scope templates:write');
    expect((await call('GET', '/api/render/job_x', { bearer: reader })).body.message).toBe('this credential lacks the scope render:read');
    const orgB = await token({ key: 'key_b' }, { scopes: ['templates:read'] });
    expect((await call('GET', '/api/templates/scoped-card', { bearer: orgB, headers: { 'x-org-id': 'org_a' } })).status).toBe(404);
    expect((await call('GET', '/api/templates', { bearer: orgB })).body.templates.map((t: Body) => t.name)).not.toContain('scoped-card');
  });
});
