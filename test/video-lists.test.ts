import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderThreads, videoService } from '../services/video.js';
import { assetListSchema, renderJobListSchema } from '../schemas/http/video.js';
import { principalCreateSchema, principalPatchSchema } from '../schemas/http/video-auth.js';
import { startTestProcess } from './support/process.js';
import { videoClient } from './fixtures/video-client.js';

/**
 * The video service's bounds and lists on embedded defaults, in an API-only process (no render
 * worker: jobs stay queued, so the organization's concurrent count is exact): render bounds per
 * organization, the paged lists of jobs and assets, asset deletion, templates' round trip.
 */

let p: Awaited<ReturnType<typeof startTestProcess>>;
let a: ReturnType<typeof videoClient>;
let b: ReturnType<typeof videoClient>;
const png = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=64x48', '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', '-']);

beforeAll(async () => {
  p = await startTestProcess({
    services: [videoService],
    role: 'api',
    env: {
      API_KEYS: 'org_a:key_a,org_b:key_b,org_c:key_c,org_d:key_d',
      RENDER_MAX_CONCURRENT_JOBS: '3',
      RENDER_MAX_JOB_SECONDS: '20',
      RENDER_MAX_SECONDS_PER_DAY: '40',
      RENDER_MAX_JOB_PIXEL_FRAMES: String(1920 * 1080 * 30 * 20),
    },
  });
  a = videoClient(p.url, 'key_a');
  b = videoClient(p.url, 'key_b');
});
afterAll(async () => {
  await p?.stop();
});

const film = (seconds: number, extra = '') => `film "F"\n${extra}scene "a" ${seconds}s\n  title "x"`;

describe('render bounds per organization', () => {
  it('a job over the per-job bounds is 400 naming the limit; the organization at its bounds is 429 naming it', async () => {
    const long = await a.call('POST', '/api/render', { source: film(21) });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ error: 'render_too_large', limit: 'RENDER_MAX_JOB_SECONDS' });
    expect(long.body.message).toMatch(/the film lasts 21s; one render may make at most 20s \(RENDER_MAX_JOB_SECONDS\)/);
    const heavy = await a.call('POST', '/api/render', { source: film(11, 'fps 60\n') });
    expect(heavy.status).toBe(400);
    expect(heavy.body).toMatchObject({ error: 'render_too_large', limit: 'RENDER_MAX_JOB_PIXEL_FRAMES' });
    expect(heavy.body.message).toMatch(/^1920x1080 at 60 fps for 11s/);
    // The same film at preview size fits.
    expect((await a.call('POST', '/api/render', { source: film(11, 'fps 60\n'), preview: true })).status).toBe(202);

    for (let i = 0; i < 2; i++) expect((await a.call('POST', '/api/render', { source: film(5) })).status).toBe(202);
    const busy = await a.call('POST', '/api/render', { source: film(5) });
    expect(busy.status).toBe(429);
    expect(busy.body).toMatchObject({ error: 'render_quota', limit: 'RENDER_MAX_CONCURRENT_JOBS' });
    // Another organization is not held back by this one.
    expect((await b.call('POST', '/api/render', { source: film(20) })).status).toBe(202);
    expect((await b.call('POST', '/api/render', { source: film(20) })).status).toBe(202);
    const daily = await b.call('POST', '/api/render', { source: film(1) });
    expect(daily.status).toBe(429);
    expect(daily.body).toMatchObject({ error: 'render_quota', limit: 'RENDER_MAX_SECONDS_PER_DAY' });
    expect(daily.body.message).toMatch(/rendered 40s in the last 24 hours/);
  });

  it('RENDER_THREADS defaults to half the cores where HTTP is served, every core on a render-only process', () => {
    expect(renderThreads(undefined, 'all', 8)).toBe(4);
    expect(renderThreads(undefined, 'api', 1)).toBe(1);
    expect(renderThreads(undefined, 'render', 8)).toBe(0);
    expect(renderThreads(2, 'all', 8)).toBe(2);
  });
});

describe('lists', () => {
  it("GET /api/render pages the organization's jobs, newest first, and never another's", async () => {
    const c = videoClient(p.url, 'key_c');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await c.call('POST', '/api/render', { source: film(1), preview: true })).body.jobId as string);
    const first = await c.call('GET', '/api/render?limit=2');
    expect(first.status).toBe(200);
    expect(renderJobListSchema.parse(first.body).jobs).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await c.call('GET', `/api/render?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.nextCursor).toBeNull();
    const seen = [...first.body.jobs, ...second.body.jobs].map((j: { jobId: string }) => j.jobId);
    expect(seen.sort()).toEqual([...ids].sort());
    expect(first.body.jobs[0]).toMatchObject({ status: 'queued', seconds: 1 });
    expect((await a.call('GET', '/api/render?limit=100')).body.jobs.map((j: { jobId: string }) => j.jobId)).not.toContain(ids[0]);
    for (const q of ['limit=0', 'limit=101', 'cursor=bogus', 'page=2']) {
      const r = await c.call('GET', `/api/render?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.message).toMatch(/limit|cursor|page/);
    }
  });

  it('GET /api/assets pages the assets; DELETE removes one and its bytes; another organization gets 404', async () => {
    const d = videoClient(p.url, 'key_d');
    const up = [];
    for (const name of ['one.png', 'two.png']) up.push((await d.upload('/api/assets', png, name)).body.assets[0]);
    const listed = await d.call('GET', '/api/assets?limit=1');
    expect(assetListSchema.parse(listed.body).assets).toHaveLength(1);
    const rest = await d.call('GET', `/api/assets?cursor=${listed.body.nextCursor}`);
    expect([...listed.body.assets, ...rest.body.assets].map((x: { filename: string }) => x.filename).sort()).toEqual(['one.png', 'two.png']);
    expect(rest.body.assets[0]).toMatchObject({ kind: 'image', mimetype: 'image/png', size: png.length });

    const id = up[0].assetId as string;
    expect((await a.call('DELETE', `/api/assets/${id}`)).status).toBe(404);
    expect((await fetch(`${p.url}/assets/${id}`)).status).toBe(200);
    expect((await d.call('DELETE', `/api/assets/${id}`)).status).toBe(204);
    expect((await fetch(`${p.url}/assets/${id}`)).status).toBe(404);
    expect(await p.platform.blobs.get(`assets/${id}`)).toBeNull();
    expect((await d.call('DELETE', `/api/assets/${id}`)).status).toBe(404);
    expect((await d.call('GET', '/api/assets')).body.assets.map((x: { assetId: string }) => x.assetId)).toEqual([up[1].assetId]);
  });
});

describe('OpenAPI examples', () => {
  it('each example of the lists and principal bodies is valid against its own schema', () => {
    for (const schema of [renderJobListSchema, assetListSchema, principalCreateSchema, principalPatchSchema]) {
      const example = (schema.meta() as { example?: unknown } | undefined)?.example;
      expect(example).toBeDefined();
      expect(schema.safeParse(example).error).toBeUndefined();
    }
  });
});

describe('templates round-trip', () => {
  it('what GET answers, PUT takes back unchanged', async () => {
    const template = { name: 'promo', source: 'film "{{title}}"\nscene "a" 3s\n  title "{{title}}"', variables: [{ name: 'title', type: 'string', required: true, example: 'Hi' }], defaults: { mood: 'calm' } };
    expect((await a.call('POST', '/api/templates', template)).status).toBe(201);
    const got = await a.call('GET', '/api/templates/promo');
    const put = await a.call('PUT', '/api/templates/promo', got.body);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual(got.body);
    expect((await a.call('GET', '/api/templates/promo')).body).toEqual(got.body);
    const renamed = await a.call('PUT', '/api/templates/other', got.body);
    expect(renamed.status).toBe(400);
    expect(renamed.body.message).toMatch(/^name: /);
  });
});
