import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoService } from '../services/video.js';
import { annotationSchema, documentSchema, lockSchema, versionListSchema } from '../schemas/http/video-documents.js';
import { renderJobSchema } from '../schemas/http/video.js';
import { MAX_DOCUMENT_SOURCE_CHARS, MAX_EDIT_OPS } from '../domain/video/document-bounds.js';
import { videoClient, type Body } from './fixtures/video-client.js';
import { realInfra } from './support/infra.js';
import { fetchOpenApi } from './support/openapi.js';
import { startTestProcess } from './support/process.js';

/**
 * Persisted script documents end to end: chDB for versions and annotations, and the window store
 * for locks and version claims — the shared Redis when WEIR_TEST_REDIS_URL names one (CI), else
 * the embedded LMDB store. Two principals of org_a (key_a, key_a2) contend; org_b is the other tenant.
 */

let p: Awaited<ReturnType<typeof startTestProcess>>;
let a: ReturnType<typeof videoClient>;
let a2: ReturnType<typeof videoClient>;
let b: ReturnType<typeof videoClient>;

const SCRIPT = ['film "Launch"', 'mood confident', 'resolution 360', '', 'scene "Intro" 2s', '  title "Hello"', '  text "Ships today"', '', 'scene "Middle" 2s', '  text "Details"', '', 'scene "Outro" 1s', '  text "Bye"', ''].join('\n');

beforeAll(async () => {
  p = await startTestProcess({
    services: [videoService],
    env: { API_KEYS: 'org_a:key_a,org_a:key_a2,org_b:key_b', RENDER_PRESET: 'ultrafast', ...(realInfra.redisUrl ? { REDIS_URL: realInfra.redisUrl } : {}) },
  });
  [a, a2, b] = ['key_a', 'key_a2', 'key_b'].map((k) => videoClient(p.url, k)) as [typeof a, typeof a, typeof a];
}, 60_000);
afterAll(async () => {
  await p?.stop();
});

async function create(client = a, body: Body = { name: 'Launch film', source: SCRIPT }): Promise<Body> {
  const r = await client.call('POST', '/api/documents', body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const principalOf = async (key: string) => {
  const r = await videoClient(p.url, key).call('POST', '/api/documents', { name: 'whoami', source: SCRIPT });
  return r.body.updatedBy as string;
};

describe('documents: versions, ETag, If-Match, restore', () => {
  it('keeps locks and version claims in the window store of the run: Redis when one is given', () => {
    expect(p.platform.windows.kind).toBe(realInfra.redisUrl ? 'redis' : 'lmdb');
  });

  it('concurrent writes without If-Match each get a version of their own', async () => {
    const doc = await create();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : a2).call('PUT', `/api/documents/${doc.id}`, { metadata: { n: i } })));
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    expect(answers.map((r) => r.body.version).sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const versions = (await a.call('GET', `/api/documents/${doc.id}/versions`)).body.versions as Body[];
    expect(versions.map((v) => v.version)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
  });

  it('every change is a new version with its author and kind; If-Match is honoured, a stale one is 412; restore brings an old version back as a new one', async () => {
    const doc = await create(a, { name: 'Launch film', source: SCRIPT, metadata: { owner: 'marketing' } });
    expect(documentSchema.parse(doc)).toMatchObject({ name: 'Launch film', source: SCRIPT, metadata: { owner: 'marketing' }, version: 1, lock: { locked: false } });
    const got = await a.call('GET', `/api/documents/${doc.id}`);
    expect(got.headers.get('etag')).toBe('"v1"');
    expect(got.body).toEqual(doc);
    expect((await a.call('GET', `/api/documents/${doc.id}`, undefined, { 'if-none-match': '"v1"' })).status).toBe(304);

    const v2 = await a.call('PUT', `/api/documents/${doc.id}`, { source: SCRIPT.replace('Hello', 'Hi') }, { 'if-match': '"v1"' });
    expect(v2.status, JSON.stringify(v2.body)).toBe(200);
    expect(v2.headers.get('etag')).toBe('"v2"');
    expect(v2.body).toMatchObject({ version: 2, metadata: { owner: 'marketing' }, createdAt: doc.createdAt });

    const stale = await a2.call('PUT', `/api/documents/${doc.id}`, { source: 'film "lost"' }, { 'if-match': '"v1"' });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ error: 'precondition_failed', currentVersion: 2 });
    expect((await a.call('GET', `/api/documents/${doc.id}`)).body.source).toContain('Hi');

    const v3 = await a2.call('PUT', `/api/documents/${doc.id}`, { metadata: { owner: 'sales' } });
    expect(v3.body).toMatchObject({ version: 3, metadata: { owner: 'sales' }, updatedBy: await principalOf('key_a2') });
    expect((await a.call('PUT', `/api/documents/${doc.id}`, { name: 'Renamed' }, { 'if-match': 'W/"v1", "v3"' })).body).toMatchObject({ version: 4, name: 'Renamed' });

    const restored = await a.call('POST', `/api/documents/${doc.id}/versions/1/restore`, undefined, { 'if-match': '"v4"' });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toMatchObject({ version: 5, name: 'Launch film', source: SCRIPT, metadata: { owner: 'marketing' } });

    const all = versionListSchema.parse((await a.call('GET', `/api/documents/${doc.id}/versions`)).body);
    expect(all.versions.map((v) => [v.version, v.kind])).toEqual([[5, 'restore'], [4, 'put'], [3, 'put'], [2, 'put'], [1, 'create']]);
    expect(all.versions[0]).toMatchObject({ restoredFrom: 1, author: doc.updatedBy });
    expect(all.versions[2]!.author).toBe(v3.body.updatedBy);
    const page1 = await a.call('GET', `/api/documents/${doc.id}/versions?limit=2`);
    expect(page1.body.versions.map((v: Body) => v.version)).toEqual([5, 4]);
    const page2 = await a.call('GET', `/api/documents/${doc.id}/versions?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.versions.map((v: Body) => v.version)).toEqual([3, 2]);
    const last = await a.call('GET', `/api/documents/${doc.id}/versions?limit=2&cursor=${page2.body.nextCursor}`);
    expect(last.body).toEqual({ versions: [expect.objectContaining({ version: 1 })], nextCursor: null });

    const v2read = await a.call('GET', `/api/documents/${doc.id}/versions/2`);
    expect(v2read.body).toMatchObject({ version: 2, kind: 'put', source: SCRIPT.replace('Hello', 'Hi'), metadata: { owner: 'marketing' } });
    expect((await a.call('GET', `/api/documents/${doc.id}/versions/9`)).status).toBe(404);

    expect((await a.call('DELETE', `/api/documents/${doc.id}`, undefined, { 'if-match': '"v4"' })).status).toBe(412);
    expect((await a.call('DELETE', `/api/documents/${doc.id}`)).status).toBe(204);
    expect((await a.call('GET', `/api/documents/${doc.id}`)).status).toBe(404);
    expect((await a.call('GET', `/api/documents/${doc.id}/versions`)).status).toBe(404);
  });

  it("takes GET's answer back whole: read-only fields ignored, its version acting as If-Match", async () => {
    const doc = await create(a, { name: 'Round trip', source: SCRIPT, metadata: { owner: 'marketing' } });
    const got = (await a.call('GET', `/api/documents/${doc.id}`)).body;
    const put = await a.call('PUT', `/api/documents/${doc.id}`, { ...got, name: 'Round trip, renamed' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ id: doc.id, version: 2, name: 'Round trip, renamed', source: SCRIPT, metadata: { owner: 'marketing' } });
    expect((await a.call('GET', `/api/documents/${doc.id}`)).body).toEqual(put.body);
    const stale = await a.call('PUT', `/api/documents/${doc.id}`, { ...got, name: 'lost' });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ error: 'precondition_failed', currentVersion: 2 });
  });

  it('lists documents in pages without their sources; a retried create with an Idempotency-Key answers the first document', async () => {
    const key = `create-${Date.now()}`;
    const first = await a.call('POST', '/api/documents', { name: 'Once', source: SCRIPT }, { 'idempotency-key': key });
    const again = await a.call('POST', '/api/documents', { name: 'Once', source: SCRIPT }, { 'idempotency-key': key });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.id).toBe(first.body.id);
    const ids: string[] = [];
    let cursor = '';
    for (let i = 0; i < 20; i++) {
      const r = await a.call('GET', `/api/documents?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.documents.length).toBeLessThanOrEqual(3);
      for (const d of r.body.documents) expect(d).not.toHaveProperty('source');
      ids.push(...r.body.documents.map((d: Body) => d.id));
      if (!r.body.nextCursor) break;
      cursor = r.body.nextCursor;
    }
    expect(ids).toContain(first.body.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort());
  });

  it('refuses bad bodies with a 400 naming what is wrong', async () => {
    const doc = await create();
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/api/documents', { name: 'x' }, /source/],
      ['POST', '/api/documents', { name: 'x', source: 'a'.repeat(MAX_DOCUMENT_SOURCE_CHARS + 1) }, /source/],
      ['POST', '/api/documents', { name: 'x', source: SCRIPT, metadata: { clip: { sourceId: 's', start: 5, end: 2 } } }, /metadata\.clip\.end: end must be after start/],
      ['PUT', `/api/documents/${doc.id}`, {}, /give source, metadata or name/],
      ['POST', `/api/documents/${doc.id}/edit`, { ops: Array.from({ length: MAX_EDIT_OPS + 1 }, () => ({ op: 'test', path: '/mood', value: 'confident' })) }, /ops/],
      ['POST', `/api/documents/${doc.id}/edit`, { ops: [{ op: 'copy', from: '/a', path: '/b' }] }, /ops\[0\]/],
      ['POST', `/api/documents/${doc.id}/lock`, { ttlSeconds: 1 }, /ttlSeconds/],
      ['POST', `/api/documents/${doc.id}/annotations`, { text: 'x' }, /give line, scene or parentId/],
      ['GET', `/api/documents?limit=1000`, undefined, /limit/],
    ];
    for (const [method, path, body, message] of cases) {
      const r = await a.call(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.body.message).toMatch(message);
    }
    const ok = await a.call('POST', '/api/documents', { name: 'clip', source: SCRIPT, metadata: { clip: { sourceId: 'src_1', start: 12.5, end: 41 } } });
    expect(ok.body.metadata).toEqual({ clip: { sourceId: 'src_1', start: 12.5, end: 41 } });
  });
});

describe('edit locks', () => {
  it('two principals contend: the holder writes, the other gets 409 on lock and 423 on every write, naming owner and expiry', async () => {
    const doc = await create();
    const held = await a.call('POST', `/api/documents/${doc.id}/lock`, {});
    expect(held.status).toBe(200);
    const lock = lockSchema.parse(held.body);
    expect(lock.owner).toBe(doc.updatedBy);
    const ttl = Date.parse(lock.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(100_000);
    expect(ttl).toBeLessThanOrEqual(121_000);

    const refused = await a2.call('POST', `/api/documents/${doc.id}/lock`, {});
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'lock_held', locked: true, owner: lock.owner, expiresAt: lock.expiresAt });
    for (const [method, path, body] of [
      ['PUT', `/api/documents/${doc.id}`, { source: SCRIPT }],
      ['POST', `/api/documents/${doc.id}/edit`, { ops: [{ op: 'replace', path: '/scenes/0/duration', value: 3 }] }],
      ['POST', `/api/documents/${doc.id}/versions/1/restore`, undefined],
      ['DELETE', `/api/documents/${doc.id}`, undefined],
    ] as const) {
      const r = await a2.call(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(423);
      expect(r.body).toMatchObject({ error: 'locked', owner: lock.owner, expiresAt: lock.expiresAt });
      expect(r.body.message).toContain(lock.owner);
    }
    expect((await a2.call('GET', `/api/documents/${doc.id}/lock`)).body).toEqual({ locked: true, owner: lock.owner, expiresAt: lock.expiresAt });
    expect((await a2.call('GET', `/api/documents/${doc.id}`)).body.lock).toEqual({ locked: true, owner: lock.owner, expiresAt: lock.expiresAt });
    expect((await a.call('PUT', `/api/documents/${doc.id}`, { source: SCRIPT.replace('Bye', 'Later') })).status).toBe(200);

    const renewed = await a.call('POST', `/api/documents/${doc.id}/lock`, { ttlSeconds: 600 });
    expect(renewed.body).toMatchObject({ owner: lock.owner, token: lock.token });
    expect(Date.parse(renewed.body.expiresAt)).toBeGreaterThan(Date.parse(lock.expiresAt));
    expect((await a2.call('DELETE', `/api/documents/${doc.id}/lock`)).status).toBe(409);
    expect((await a.call('DELETE', `/api/documents/${doc.id}/lock`)).status).toBe(204);
    expect((await a2.call('GET', `/api/documents/${doc.id}/lock`)).body).toEqual({ locked: false });
    expect((await a2.call('PUT', `/api/documents/${doc.id}`, { source: SCRIPT })).status).toBe(200);
    expect((await a2.call('POST', `/api/documents/${doc.id}/lock`, {})).body.owner).toBe(await principalOf('key_a2'));
  });
});

describe('structured edits', () => {
  it('applies operations to the source in place and records them in the version', async () => {
    const doc = await create();
    const ops = [
      { op: 'test', path: '/scenes/1/name', value: 'Middle' },
      { op: 'replace', path: '/scenes/0/duration', value: 3 },
      { op: 'replace', path: '/scenes/0/layers/1/text', value: 'Out now' },
      { op: 'replace', path: '/mood', value: 'calm' },
      { op: 'add', path: '/scenes/0/transition', value: { kind: 'fade', duration: 0.5 } },
      { op: 'move', from: '/scenes/2', path: '/scenes/0' },
    ];
    const r = await a.call('POST', `/api/documents/${doc.id}/edit`, { ops }, { 'if-match': '"v1"' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get('etag')).toBe('"v2"');
    expect(r.body.source).toBe(
      ['film "Launch"', 'mood calm', 'resolution 360', '', 'scene "Outro" 1s', '  text "Bye"', '', 'scene "Intro" 3s', '  title "Hello"', '  text "Out now"', '  transition fade 0.5s', '', 'scene "Middle" 2s', '  text "Details"', ''].join('\n'),
    );
    const versions = await a.call('GET', `/api/documents/${doc.id}/versions?limit=1`);
    expect(versions.body.versions[0]).toMatchObject({ version: 2, kind: 'edit', ops });
  });

  it('an edit whose result does not compile is 422 with its diagnostics and writes nothing; bad operations and failed tests name the operation', async () => {
    const doc = await create();
    const r = await a.call('POST', `/api/documents/${doc.id}/edit`, {
      ops: [
        { op: 'replace', path: '/scenes/0/duration', value: 900 },
        { op: 'replace', path: '/mood', value: 'sparkly' },
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ error: 'compile_failed', message: expect.stringContaining('nothing was written') });
    expect(r.body.diagnostics.filter((d: Body) => d.level === 'error').map((d: Body) => [d.code, d.line])).toEqual([
      ['unknown-mood', 2],
      ['out-of-range', 5],
    ]);
    const bad = await a.call('POST', `/api/documents/${doc.id}/edit`, { ops: [{ op: 'replace', path: '/mood', value: 'calm' }, { op: 'remove', path: '/scenes/7' }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_edit', op: 1, message: expect.stringMatching(/^ops\[1\]: the script has 3 scenes/) });
    const test = await a.call('POST', `/api/documents/${doc.id}/edit`, { ops: [{ op: 'test', path: '/scenes/0/duration', value: 5 }, { op: 'remove', path: '/scenes/0' }] });
    expect(test.status).toBe(409);
    expect(test.body).toMatchObject({ error: 'test_failed', op: 0 });
    const stale = await a.call('POST', `/api/documents/${doc.id}/edit`, { ops: [{ op: 'remove', path: '/scenes/0' }] }, { 'if-match': '"v7"' });
    expect(stale.status).toBe(412);
    const after = await a.call('GET', `/api/documents/${doc.id}`);
    expect(after.body).toMatchObject({ version: 1, source: SCRIPT });
    expect((await a.call('GET', `/api/documents/${doc.id}/versions`)).body.versions).toHaveLength(1);
  });
});

describe('annotations', () => {
  it('move with their scene through edits and puts, are outdated when their text is gone, resolve and delete with their replies', async () => {
    const doc = await create();
    const onText = await a.call('POST', `/api/documents/${doc.id}/annotations`, { text: 'Say when?', line: 7 });
    expect(onText.status, JSON.stringify(onText.body)).toBe(201);
    expect(annotationSchema.parse(onText.body)).toMatchObject({ anchor: 'line', line: 7, endLine: 7, scene: 0, version: 1, resolved: false, outdated: false, author: doc.updatedBy });
    const onScene = (await a2.call('POST', `/api/documents/${doc.id}/annotations`, { text: 'Too short', scene: 2 })).body;
    expect(onScene).toMatchObject({ anchor: 'scene', line: 12, scene: 2 });
    const onTitle = (await a.call('POST', `/api/documents/${doc.id}/annotations`, { text: 'Bigger', line: 6, scene: 0 })).body;
    const reply = (await a2.call('POST', `/api/documents/${doc.id}/annotations`, { text: 'Agreed', parentId: onText.body.id })).body;
    expect(reply).toMatchObject({ parentId: onText.body.id, line: 7, scene: 0 });

    // Outro moves first: the Intro's lines and the Outro itself move with their scenes.
    expect((await a.call('POST', `/api/documents/${doc.id}/edit`, { ops: [{ op: 'move', from: '/scenes/2', path: '/scenes/0' }] })).status).toBe(200);
    const byId = async () => new Map(((await a.call('GET', `/api/documents/${doc.id}/annotations`)).body.annotations as Body[]).map((x) => [x.id, x]));
    let now = await byId();
    expect(now.get(onText.body.id)).toMatchObject({ line: 10, scene: 1, version: 2, outdated: false });
    expect(now.get(reply.id)).toMatchObject({ line: 10, scene: 1, version: 2 });
    expect(now.get(onScene.id)).toMatchObject({ line: 5, scene: 0, version: 2, outdated: false });
    const current = (await a.call('GET', `/api/documents/${doc.id}`)).body.source.split('\n');
    expect(current[9]).toBe('  text "Ships today"');

    // The annotated text is replaced: that annotation is outdated, the title's stays where it is.
    expect((await a.call('POST', `/api/documents/${doc.id}/edit`, { ops: [{ op: 'replace', path: '/scenes/1/layers/1/text', value: 'Ships Monday' }] })).status).toBe(200);
    now = await byId();
    expect(now.get(onText.body.id)).toMatchObject({ outdated: true, line: 10, version: 2 });
    expect(now.get(onTitle.id)).toMatchObject({ outdated: false, line: 9, scene: 1, version: 3 });

    // A PUT that reorders scenes by hand: matched by name.
    const swapped = (await a.call('GET', `/api/documents/${doc.id}`)).body.source.replace('scene "Outro" 1s\n  text "Bye"\n\n', '') + 'scene "Outro" 1s\n  text "Bye"\n';
    expect((await a.call('PUT', `/api/documents/${doc.id}`, { source: swapped })).status).toBe(200);
    now = await byId();
    expect(now.get(onScene.id)).toMatchObject({ scene: 2, line: 11, version: 4, outdated: false });
    expect(now.get(onTitle.id)).toMatchObject({ scene: 0, line: 6, version: 4 });

    const resolved = await a2.call('PATCH', `/api/documents/${doc.id}/annotations/${onTitle.id}`, { resolved: true });
    expect(resolved.body).toMatchObject({ resolved: true, resolvedBy: await principalOf('key_a2') });
    expect((await a.call('DELETE', `/api/documents/${doc.id}/annotations/${onText.body.id}`)).status).toBe(204);
    now = await byId();
    expect([...now.keys()].sort()).toEqual([onScene.id, onTitle.id].sort());

    const outside = await a.call('POST', `/api/documents/${doc.id}/annotations`, { text: 'x', line: 99 });
    expect(outside.status).toBe(400);
    expect(outside.body).toMatchObject({ error: 'invalid_anchor', message: expect.stringContaining('lines') });
    const onOld = await a.call('POST', `/api/documents/${doc.id}/annotations`, { text: 'from v1', line: 10, version: 1 });
    expect(onOld.body).toMatchObject({ line: 10, scene: 1, version: 4 });
  });
});

describe('render', () => {
  it('renders the current version and the job records which version it was', async () => {
    const doc = await create();
    await a.call('POST', `/api/documents/${doc.id}/edit`, { ops: [{ op: 'remove', path: '/scenes/1' }] });
    const r = await a.call('POST', `/api/documents/${doc.id}/render`);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({ status: 'queued', documentId: doc.id, version: 2 });
    const job = await a.call('GET', `/api/render/${r.body.jobId}`);
    expect(renderJobSchema.parse(job.body)).toMatchObject({ origin: 'document', document: { id: doc.id, version: 2 } });
    const done = await a.settle(r.body.jobId);
    expect(done).toMatchObject({ status: 'complete', document: { id: doc.id, version: 2 } });
    const v2 = await a.call('GET', `/api/documents/${doc.id}/versions/2`);
    const compiled = await a.call('POST', '/api/compile', { source: v2.body.source });
    expect(Math.abs(done.output.durationSeconds - compiled.body.renderGraph.film.durationSeconds)).toBeLessThan(0.1);
  }, 120_000);
});

describe('tenant isolation and scopes', () => {
  it("another organization's document is 404 on every route, and absent from its list", async () => {
    const doc = await create();
    const ann = (await a.call('POST', `/api/documents/${doc.id}/annotations`, { text: 'x', scene: 0 })).body;
    const routes: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['PUT', '', { source: SCRIPT }],
      ['DELETE', '', undefined],
      ['GET', '/versions', undefined],
      ['GET', '/versions/1', undefined],
      ['POST', '/versions/1/restore', undefined],
      ['POST', '/edit', { ops: [{ op: 'remove', path: '/scenes/0' }] }],
      ['POST', '/render', undefined],
      ['POST', '/lock', {}],
      ['GET', '/lock', undefined],
      ['DELETE', '/lock', undefined],
      ['POST', '/annotations', { text: 'x', scene: 0 }],
      ['GET', '/annotations', undefined],
      ['PATCH', `/annotations/${ann.id}`, { resolved: true }],
      ['DELETE', `/annotations/${ann.id}`, undefined],
    ];
    for (const [method, suffix, body] of routes) {
      const r = await b.call(method, `/api/documents/${doc.id}${suffix}`, body, { 'x-org-id': 'org_a' });
      expect(r.status, `${method} ${suffix}`).toBe(404);
      expect(r.body.error).toBe('not_found');
    }
    expect((await b.call('GET', '/api/documents?limit=100')).body.documents.map((d: Body) => d.id)).not.toContain(doc.id);
    const still = await a.call('GET', `/api/documents/${doc.id}`);
    expect(still.body).toMatchObject({ version: 1, lock: { locked: false } });
    expect((await a.call('GET', `/api/documents/${doc.id}/annotations`)).body.annotations).toHaveLength(1);
  });

  it('documents:read reads and cannot write; writes need documents:write; rendering needs render:write and documents:read', async () => {
    const doc = await create();
    const principal = async (scopes: string[]) => {
      const r = await a.call('POST', '/api/principals', { name: scopes.join('+'), scopes });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return videoClient(p.url, r.body.apiKey as string);
    };
    const reader = await principal(['documents:read']);
    expect((await reader.call('GET', `/api/documents/${doc.id}`)).status).toBe(200);
    expect((await reader.call('GET', `/api/documents/${doc.id}/annotations`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/documents', { name: 'x', source: SCRIPT }],
      ['PUT', `/api/documents/${doc.id}`, { source: SCRIPT }],
      ['POST', `/api/documents/${doc.id}/edit`, { ops: [{ op: 'remove', path: '/scenes/0' }] }],
      ['POST', `/api/documents/${doc.id}/lock`, {}],
      ['POST', `/api/documents/${doc.id}/annotations`, { text: 'x', scene: 0 }],
      ['POST', `/api/documents/${doc.id}/render`, undefined],
    ] as const) {
      const r = await reader.call(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(403);
    }
    const renderer = await principal(['render:write']);
    const r = await renderer.call('POST', `/api/documents/${doc.id}/render`);
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('this credential lacks the scope documents:read');
    expect((await renderer.call('GET', `/api/documents/${doc.id}`)).status).toBe(403);
  });
});

describe('OpenAPI', () => {
  it('documents every document route with its scope, bodies with examples, and If-Match', async () => {
    const { doc } = await fetchOpenApi(`${p.url}/api/openapi.json`);
    const paths = doc.paths as Record<string, Record<string, Body>>;
    const ops = Object.entries(paths)
      .filter(([path]) => path.startsWith('/api/documents'))
      .flatMap(([path, o]) => Object.entries(o).map(([method, op]) => ({ route: `${method} ${path}`, op })));
    expect(ops.map((o) => o.route).sort()).toEqual(
      [
        'get /api/documents',
        'post /api/documents',
        'get /api/documents/{id}',
        'put /api/documents/{id}',
        'delete /api/documents/{id}',
        'get /api/documents/{id}/versions',
        'get /api/documents/{id}/versions/{version}',
        'post /api/documents/{id}/versions/{version}/restore',
        'post /api/documents/{id}/edit',
        'post /api/documents/{id}/render',
        'post /api/documents/{id}/lock',
        'get /api/documents/{id}/lock',
        'delete /api/documents/{id}/lock',
        'post /api/documents/{id}/annotations',
        'get /api/documents/{id}/annotations',
        'patch /api/documents/{id}/annotations/{annotationId}',
        'delete /api/documents/{id}/annotations/{annotationId}',
      ].sort(),
    );
    for (const { route, op } of ops) expect(op['x-required-scope'], route).toMatch(/^(documents:(read|write)|render:write)$/);
    expect(paths['/api/documents/{id}']!.put!.parameters.map((x: Body) => x.name)).toContain('if-match');
    const schemas = doc.components!.schemas as Record<string, Body>;
    for (const name of ['DocumentCreate', 'DocumentEdit', 'Document', 'DocumentLock', 'AnnotationCreate', 'Annotation']) expect(schemas[name]!.example, name).toBeDefined();
    expect(paths['/api/documents/{id}/edit']!.post!.responses['422']).toBeDefined();
  });
});
