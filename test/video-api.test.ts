import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoService } from '../services/video.js';
import { compileResponseSchema, moodListSchema, resolvedMoodSchema } from '../schemas/http/video.js';
import { startTestProcess } from './support/process.js';
import { fetchOpenApi, undocumentedRoutes } from './support/openapi.js';

/** The video service's compile and mood routes end to end on embedded defaults. */

let p: Awaited<ReturnType<typeof startTestProcess>>;
const contractExample = readFileSync(new URL('../domain/video/fixtures/launch.script', import.meta.url), 'utf8');

beforeAll(async () => {
  p = await startTestProcess({ services: [videoService] });
});
afterAll(async () => {
  await p?.stop();
});

async function call(method: string, path: string, opts: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== null) headers['x-api-key'] = opts.key ?? 'key_a';
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${p.url}${path}`, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('POST /api/compile', () => {
  it('answers the render graph of the contract example, version "1", 1080p', async () => {
    const r = await call('POST', '/api/compile', { body: { source: contractExample, variables: { product: 'Weir' } } });
    expect(r.status).toBe(200);
    expect(compileResponseSchema.parse(r.body)).toBeTruthy();
    expect(r.body.renderGraph).toMatchObject({ version: '1', film: { title: 'Launch Day', mood: 'confident', width: 1920, height: 1080 } });
    expect(r.body.renderGraph.scenes.map((s: { name: string }) => s.name)).toEqual(['Intro', 'Outro']);
    expect(r.body.diagnostics).toEqual([]);
  });

  it('answers 200 with warnings for a script that renders but looks wrong', async () => {
    const r = await call('POST', '/api/compile', { body: { source: contractExample } });
    expect(r.status).toBe(200);
    expect(r.body.diagnostics).toEqual([{ level: 'warning', code: 'unknown-variable', message: expect.stringContaining('{{product}}'), line: 14, column: 9 }]);
  });

  it('answers 400 compile_failed with every diagnostic at once, each with level, message, line and column', async () => {
    const r = await call('POST', '/api/compile', { body: { source: 'film "T"\naspect 4:3\nscene "a"\n  titel "x"' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 'error', error: 'compile_failed', request_id: expect.any(String) });
    expect(r.body.message).toMatch(/^the script has 3 errors; the first, at line 2 column 8: /);
    expect(r.body.diagnostics.map((d: Record<string, unknown>) => [d.level, d.line, d.column])).toEqual([
      ['error', 2, 8],
      ['error', 3, 1],
      ['error', 4, 3],
    ]);
    for (const d of r.body.diagnostics) expect(Object.keys(d).sort()).toEqual(['code', 'column', 'level', 'line', 'message']);
  });

  it('theme and preview change what is rendered', async () => {
    const plain = await call('POST', '/api/compile', { body: { source: contractExample } });
    const r = await call('POST', '/api/compile', { body: { source: contractExample, theme: 'paper', preview: true } });
    expect(r.status).toBe(200);
    expect(r.body.renderGraph.film).toMatchObject({ theme: 'paper', preview: true, width: 640, height: 360, fps: 15 });
    expect(r.body.renderGraph.style.palette.background).toBe('#FAF8F2');
    expect(r.body.renderGraph.scenes[1].background).not.toEqual(plain.body.renderGraph.scenes[1].background);
    expect(r.body.renderGraph.scenes[0].layers[0].font.family).toBe('DejaVu Serif');
  });

  it('refuses a bad request body with a 400 naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /source/],
      [{ source: '' }, /source/],
      [{ source: 'x', theme: 'sparkly' }, /theme/],
      [{ source: 'x', preview: 'yes' }, /preview/],
      [{ source: 'x', variables: { '9x': 'a' } }, /variables/],
      [{ source: 'x', extra: 1 }, /extra/],
    ];
    for (const [body, where] of cases) {
      const r = await call('POST', '/api/compile', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('validation_error');
      expect(r.body.message).toMatch(where);
    }
    const malformed = await call('POST', '/api/compile', { raw: '{"source": ' });
    expect([malformed.status, malformed.body.error]).toEqual([400, 'malformed_json']);
  });
});

describe('moods', () => {
  it('GET /api/moods lists the seven built-ins with profiles and the aliases', async () => {
    const r = await call('GET', '/api/moods');
    expect(r.status).toBe(200);
    const body = moodListSchema.parse(r.body);
    expect(body.moods.map((m) => m.name)).toEqual(['confident', 'playful', 'dramatic', 'elegant', 'calm', 'urgent', 'precision']);
    expect(body.aliases).toMatchObject({ cinematic: 'dramatic', electric: 'urgent', intimate: 'calm', retro: 'playful', corporate: 'confident', technical: 'precision', launch: 'confident' });
  });

  it('GET /api/moods/{name} resolves a built-in and an alias, case-insensitively', async () => {
    const built = await call('GET', '/api/moods/calm');
    expect(resolvedMoodSchema.parse(built.body)).toMatchObject({ name: 'calm', alias: false, resolvesTo: 'calm', profile: { name: 'calm' } });
    const alias = await call('GET', '/api/moods/Cinematic');
    expect(alias.body).toMatchObject({ name: 'cinematic', alias: true, resolvesTo: 'dramatic', profile: { name: 'dramatic', transition: { kind: 'fadeblack' } } });
  });

  it('GET /api/moods/{name} answers 404 with a hint for an unknown name', async () => {
    const r = await call('GET', '/api/moods/cinematc');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'not_found', message: expect.stringContaining('did you mean cinematic?') });
  });
});

describe('credentials', () => {
  it('every route needs a known x-api-key: 401 without or with an unknown one', async () => {
    for (const [method, path] of [
      ['GET', '/api/health'],
      ['GET', '/api/moods'],
      ['GET', '/api/moods/calm'],
      ['POST', '/api/compile'],
    ] as const) {
      for (const key of [null, 'wrong']) {
        const r = await call(method, path, { key, body: method === 'POST' ? { source: contractExample } : undefined });
        expect(r.status, `${method} ${path} key ${key}`).toBe(401);
        expect(r.body.error).toBe('unauthorized');
      }
    }
  });

  it('the organization comes from the key alone; x-org-id is ignored', async () => {
    const a = await call('GET', '/api/health', { headers: { 'x-org-id': 'org_b' } });
    expect(a.body).toMatchObject({ status: 'ok', orgId: 'org_a' });
    const b = await call('GET', '/api/health', { key: 'key_b', headers: { 'x-org-id': 'org_a' } });
    expect(b.body).toMatchObject({ status: 'ok', orgId: 'org_b' });
  });
});

describe('OpenAPI document', () => {
  it('is served without credentials and documents every route the router serves, from the zod schemas', async () => {
    const { doc } = await fetchOpenApi(`${p.url}/api/openapi.json`);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp',
      '/api/assets', '/api/assets/{id}',
      '/api/clips/candidates', '/api/clips/candidates/refine', '/api/clips/documents', '/api/clips/documents/{id}/export', '/api/clips/documents/{id}/redraft', '/api/clips/draft',
      '/api/compile', '/api/compile/file',
      '/api/documents', '/api/documents/{id}', '/api/documents/{id}/annotations', '/api/documents/{id}/annotations/{annotationId}', '/api/documents/{id}/edit',
      '/api/documents/{id}/lock', '/api/documents/{id}/render', '/api/documents/{id}/versions', '/api/documents/{id}/versions/{version}', '/api/documents/{id}/versions/{version}/restore',
      '/api/health', '/api/mcp', '/api/mcp/tools', '/api/moods', '/api/moods/{name}', '/api/openapi.json',
      '/api/preview', '/api/principals', '/api/principals/{id}', '/api/queue', '/api/render', '/api/render/file', '/api/render/template', '/api/render/{id}',
      '/api/session-token', '/api/sources', '/api/sources/upload', '/api/sources/{id}', '/api/sources/{id}/preprocess',
      '/api/templates', '/api/templates/{name}', '/api/video/{id}', '/assets/{id}', '/demo', '/demo/session',
      '/oauth/authorize', '/oauth/token', '/sources/{id}/media', '/sources/{id}/thumbnails/{thumbId}',
    ]);
    expect((doc.paths['/assets/{id}']?.get as { security?: unknown }).security).toEqual([]);
    expect(await undocumentedRoutes(p.url, doc, { name: 'calm' }, { 'x-api-key': 'key_a' })).toEqual([]);
    expect(doc.paths['/api/compile']?.post?.requestBody?.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CompileRequest' });
    expect(doc.components?.schemas?.CompileRequest).toMatchObject({ required: ['source'] });
    expect(doc.components?.schemas).toHaveProperty('RenderGraph');
    expect(doc.components?.schemas?.VideoError).toMatchObject({ required: expect.arrayContaining(['status', 'error', 'message']) });
  });
});
