import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoService } from '../services/video.js';
import { renderJobSchema, renderQueuedSchema } from '../schemas/http/video.js';
import { startTestProcess } from './support/process.js';
import { ffprobe, makeMedia, type Probed } from './fixtures/video-media.js';
import { videoClient, type Body } from './fixtures/video-client.js';

/**
 * Rendering end to end on embedded defaults: one process (role all) with the render worker pool;
 * real MP4 files read back with ffprobe.
 */

const ASSET_MAX_BYTES = 400_000;
let p: Awaited<ReturnType<typeof startTestProcess>>;
let a: ReturnType<typeof videoClient>;
let b: ReturnType<typeof videoClient>;
let media: Awaited<ReturnType<typeof makeMedia>>;
let scratch: string;
const ids: Record<'png' | 'wav' | 'mp4', string> = { png: '', wav: '', mp4: '' };

beforeAll(async () => {
  [p, media, scratch] = await Promise.all([
    startTestProcess({ services: [videoService], env: { ASSET_MAX_BYTES: String(ASSET_MAX_BYTES), RENDER_CONCURRENCY: '2', RENDER_PRESET: 'ultrafast', RENDER_STALL_SECONDS: '5' } }),
    makeMedia(),
    mkdtemp(path.join(os.tmpdir(), 'weir-video-test-')),
  ]);
  a = videoClient(p.url, 'key_a');
  b = videoClient(p.url, 'key_b');
  for (const kind of ['png', 'wav', 'mp4'] as const) {
    const r = await a.upload('/api/assets', media[kind], `upload.${kind}`);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    ids[kind] = r.body.assets[0].assetId;
  }
}, 60_000);
afterAll(async () => {
  await p?.stop();
});

async function renderAndProbe(client: ReturnType<typeof videoClient>, source: string): Promise<{ job: Body; probed: Probed; file: Buffer }> {
  const queued = await client.call('POST', '/api/render', { source });
  expect(queued.status, JSON.stringify(queued.body)).toBe(202);
  const job = await client.settle(queued.body.jobId);
  expect(job.status, JSON.stringify(job.errors)).toBe('complete');
  const video = await client.download(new URL(job.output.url).pathname);
  expect(video.status).toBe(200);
  expect(video.headers.get('content-type')).toBe('video/mp4');
  const file = path.join(scratch, `${queued.body.jobId}.mp4`);
  await writeFile(file, video.bytes);
  return { job, probed: await ffprobe(file), file: video.bytes };
}

describe('rendering to MP4', () => {
  it('renders text, an image, a clip, an audio bed with fades and transitions: H.264 + AAC, faststart, the compiled duration within one frame', async () => {
    const source = [
      'film "Launch"',
      'mood confident',
      'resolution 360',
      'fps 24',
      `audio asset:${ids.wav} volume 0.8 fade 0.5s`,
      'scene "Intro" 1.5s',
      '  title "Hello"',
      `  image asset:${ids.png}`,
      '  transition fade 0.5s',
      'scene "Clip" 1.5s',
      `  background asset:${ids.mp4}`,
      '  text "Ships today"',
      '  transition wipeleft 0.5s',
      'scene "Outro" 1s',
      '  background #102030',
      '  text "Bye"',
    ].join('\n');
    const { job, probed, file } = await renderAndProbe(a, source);
    expect(renderJobSchema.parse(job)).toBeTruthy();
    const expected = 1.5 + 1.5 + 1 - 0.5 - 0.5;
    expect(Math.abs(probed.durationSeconds - expected)).toBeLessThanOrEqual(1 / 24);
    expect(probed).toMatchObject({ width: 640, height: 360, codecs: ['audio:aac', 'video:h264'] });
    expect(job).toMatchObject({ progress: 1, output: { width: 640, height: 360, sizeBytes: file.length } });
    expect(Math.abs(job.output.durationSeconds - expected)).toBeLessThanOrEqual(1 / 24);
    // faststart: the index (moov) comes before the media data.
    expect(file.indexOf('moov')).toBeGreaterThan(0);
    expect(file.indexOf('moov')).toBeLessThan(file.indexOf('mdat'));
  }, 120_000);

  it('renders 9:16 at 1080p by default', async () => {
    const { probed } = await renderAndProbe(a, 'film "Tall"\naspect 9:16\nscene "a" 1s\n  title "Up"');
    expect(probed).toMatchObject({ width: 1080, height: 1920, codecs: ['audio:aac', 'video:h264'] });
    expect(Math.abs(probed.durationSeconds - 1)).toBeLessThanOrEqual(1 / 30);
  }, 120_000);

  it('renders 1:1 as a square', async () => {
    const { probed } = await renderAndProbe(a, 'film "Square"\naspect 1:1\nresolution 360\nscene "a" 1s\n  text "Square"');
    expect(probed).toMatchObject({ width: 360, height: 360 });
  }, 120_000);

  it('answers the queue response: 202, status queued, a message and the full status address', async () => {
    const r = await a.call('POST', '/api/render', { source: 'film "Q"\nresolution 360\nscene "a" 1s\n  text "q"', engine: 'native' });
    expect(r.status).toBe(202);
    expect(renderQueuedSchema.parse(r.body)).toMatchObject({ status: 'queued', statusUrl: `${p.url}/api/render/${r.body.jobId}` });
    expect(r.body.message).toContain(r.body.statusUrl);
    expect((await a.settle(r.body.jobId)).status).toBe('complete');
  }, 120_000);

  it('renders a script file sent as multipart', async () => {
    const r = await a.upload('/api/render/file', Buffer.from('film "File"\nscene "a" 1s\n  text "from a file"'), 'film.script', 'text/plain', { preview: 'true' });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const job = await a.settle(r.body.jobId);
    expect(job).toMatchObject({ status: 'complete', origin: 'file', output: { width: 640, height: 360 } });
  }, 120_000);

  it('compiles a script file sent as multipart, with every diagnostic of a broken one', async () => {
    const ok = await a.upload('/api/compile/file', Buffer.from('film "File"\naspect 1:1\nscene "a" 2s\n  text "from a file"'), 'film.script', 'text/plain', { preview: 'true' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.renderGraph).toMatchObject({ version: '1', film: { title: 'File' } });
    expect(ok.body.renderGraph.scenes).toHaveLength(1);
    const broken = await a.upload('/api/compile/file', Buffer.from('film "File"\nscene "a"\n  sparkle 3'), 'film.script', 'text/plain');
    expect(broken.status).toBe(400);
    expect(broken.body.error).toBe('compile_failed');
    expect(broken.body.diagnostics.map((d: { line: number }) => d.line)).toEqual(expect.arrayContaining([2, 3]));
    expect((await a.call('POST', '/api/compile/file', { source: 'film "x"' })).status).toBe(415);
  });

  it('a render that fails reports its error through GET /api/render/{id}', async () => {
    // A PNG by its signature, cut short: taken as an image, undecodable by ffmpeg.
    const broken = await a.upload('/api/assets', media.png.subarray(0, 200), 'broken.png');
    expect(broken.status).toBe(201);
    const r = await a.call('POST', '/api/render', { source: `film "Broken"\nresolution 360\nscene "a" 1s\n  image asset:${broken.body.assets[0].assetId}` });
    expect(r.status).toBe(202);
    const job = await a.settle(r.body.jobId);
    expect(job).toMatchObject({ status: 'failed', errors: [{ code: 'render_stalled', message: expect.stringMatching(/no progress for 5 s/) }] });
    expect(job.output).toBeUndefined();
    expect(job.errors[0].message).not.toContain(os.tmpdir());
    expect((await a.download(`/api/video/${r.body.jobId}`)).status).toBe(404);
  }, 120_000);

  it('refuses a script that does not compile, or that names an asset the organization does not have', async () => {
    const bad = await a.call('POST', '/api/render', { source: 'film "x"\nscene "a"' });
    expect(bad).toMatchObject({ status: 400, body: { error: 'compile_failed', diagnostics: [expect.objectContaining({ level: 'error', line: 2 })] } });
    const foreign = await b.call('POST', '/api/render', { source: `film "x"\nscene "a" 1s\n  image asset:${ids.png}` });
    expect(foreign).toMatchObject({ status: 400, body: { error: 'compile_failed', diagnostics: [{ level: 'error', code: 'unknown-asset', line: 3, column: 1, message: expect.any(String) }] } });
  });
});

describe('GET /api/video/{id} range requests', () => {
  it('answers one byte range with 206 and Content-Range, the bytes of the whole file at those offsets; an unsatisfiable range 416', async () => {
    const r = await a.call('POST', '/api/render', { source: 'film "R"\nresolution 360\nscene "a" 1s\n  text "range"' });
    const job = await a.settle(r.body.jobId);
    const url = `/api/video/${r.body.jobId}`;
    const whole = await a.download(url);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.bytes.length).toBe(job.output.sizeBytes);
    const part = await a.download(url, { range: 'bytes=100-1099' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-1099/${whole.bytes.length}`);
    expect(part.bytes.equals(whole.bytes.subarray(100, 1100))).toBe(true);
    const tail = await a.download(url, { range: 'bytes=-50' });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(whole.bytes.subarray(-50))).toBe(true);
    const beyond = await a.download(url, { range: `bytes=${whole.bytes.length + 10}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${whole.bytes.length}`);
  }, 120_000);
});

describe('templates', () => {
  const template = {
    name: 'promo',
    description: 'A product promo',
    version: '2',
    variables: [
      { name: 'product', type: 'string', required: true, example: 'Weir' },
      { name: 'tagline', type: 'string', required: false, default: 'Ships today' },
      { name: 'length', type: 'string', required: false, default: '1s' },
    ],
    defaults: { mood: 'electric', aspect: '1:1' },
    source: 'film "{{product}}"\nresolution 360\nscene "a" {{length}}\n  title "{{product}}"\n  text "{{tagline}}"',
  };

  it('registers, lists, reads and deletes, per organization', async () => {
    expect((await a.call('POST', '/api/templates', template)).status).toBe(201);
    expect((await a.call('GET', '/api/templates')).body.templates.map((t: { name: string }) => t.name)).toEqual(['promo']);
    expect((await a.call('GET', '/api/templates/promo')).body).toEqual(template);
    expect((await b.call('GET', '/api/templates')).body.templates).toEqual([]);
    expect((await b.call('GET', '/api/templates/promo')).status).toBe(404);
    expect((await b.call('DELETE', '/api/templates/promo')).status).toBe(404);
    expect((await b.call('POST', '/api/render/template', { template: 'promo', variables: { product: 'X' } })).status).toBe(404);
    expect((await a.call('POST', '/api/templates', { ...template, name: 'gone' })).status).toBe(201);
    expect((await a.call('DELETE', '/api/templates/gone')).status).toBe(204);
    expect((await a.call('GET', '/api/templates/gone')).status).toBe(404);
  });

  it('refuses a template whose script uses an undeclared variable, or whose default has the wrong type', async () => {
    const undeclared = await a.call('POST', '/api/templates', { ...template, name: 'bad', source: 'film "{{other}}"\nscene "a" 1s' });
    expect(undeclared).toMatchObject({ status: 400, body: { message: expect.stringContaining('{{other}}') } });
    const badDefault = await a.call('POST', '/api/templates', { ...template, name: 'bad', variables: [{ name: 'product', type: 'number', default: 'x' }] });
    expect(badDefault).toMatchObject({ status: 400, body: { error: 'validation_error', message: expect.stringContaining('default') } });
  });

  it('checks variables against the schema: required, types, undeclared; each problem named', async () => {
    const missing = await a.call('POST', '/api/render/template', { template: 'promo', variables: { tagline: 3, extra: 1 } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_variables');
    expect(missing.body.issues).toEqual([
      { variable: 'extra', message: expect.stringContaining('not a variable of this template') },
      { variable: 'product', message: 'is required (a string)' },
      { variable: 'tagline', message: 'must be a string, got number' },
    ]);
  });

  it('renders with the given values, defaults for the rest and the template defaults (1:1)', async () => {
    const r = await a.call('POST', '/api/render/template', { template: 'promo', variables: { product: 'Weir' } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const job = await a.settle(r.body.jobId);
    expect(job).toMatchObject({ status: 'complete', origin: 'template', template: 'promo', output: { width: 360, height: 360 } });
    expect(Math.abs(job.output.durationSeconds - 1)).toBeLessThanOrEqual(1 / 30);
  }, 120_000);
});

describe('assets', () => {
  it('sniffs the type from the content, not from the name or the declared type', async () => {
    const r = await a.upload('/api/assets', media.png, 'song.mp3', 'audio/mpeg');
    expect(r).toMatchObject({ status: 201, body: { assets: [{ filename: 'song.mp3', mimetype: 'image/png', size: media.png.length }] } });
    const served = await fetch(r.body.assets[0].url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(media.png)).toBe(true);
    const wav = await a.upload('/api/assets', media.wav, 'picture.png', 'image/png');
    expect(wav.body.assets[0].mimetype).toBe('audio/wav');
  });

  it('refuses content of no accepted type (415), a file over ASSET_MAX_BYTES (413) and a body without a file (400)', async () => {
    const text = await a.upload('/api/assets', Buffer.from('<html><script>alert(1)</script></html>'), 'image.png', 'image/png');
    expect(text).toMatchObject({ status: 415, body: { error: 'unsupported_media_type' } });
    const big = await a.upload('/api/assets', Buffer.concat([media.png, Buffer.alloc(ASSET_MAX_BYTES)]), 'big.png');
    expect(big).toMatchObject({ status: 413, body: { message: expect.stringContaining(String(ASSET_MAX_BYTES)) } });
    const form = new FormData();
    form.append('other', 'x');
    const none = await fetch(`${p.url}/api/assets`, { method: 'POST', headers: { 'x-api-key': 'key_a' }, body: form });
    expect(none.status).toBe(400);
  });

  it('serves byte ranges of an asset publicly; an unknown id is 404', async () => {
    const part = await fetch(`${p.url}/assets/${ids.png}`, { headers: { range: 'bytes=0-7' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(media.png.subarray(0, 8))).toBe(true);
    expect((await fetch(`${p.url}/assets/ast_${'0'.repeat(32)}`)).status).toBe(404);
    expect((await fetch(`${p.url}/assets/..%2f..%2fetc`)).status).toBe(404);
  });
});

describe('tenant isolation and the queue', () => {
  it("another organization gets 404 for a job and its video", async () => {
    const r = await a.call('POST', '/api/render', { source: 'film "Mine"\nresolution 360\nscene "a" 1s\n  text "mine"' });
    await a.settle(r.body.jobId);
    expect((await b.call('GET', `/api/render/${r.body.jobId}`)).status).toBe(404);
    expect((await b.download(`/api/video/${r.body.jobId}`)).status).toBe(404);
    expect((await a.download(`/api/video/${r.body.jobId}`)).status).toBe(200);
  }, 120_000);

  it('GET /api/queue answers depth, the workers with their concurrency, and only the caller\'s jobs in flight', async () => {
    const q = await a.call('GET', '/api/queue');
    expect(q.status).toBe(200);
    expect(q.body.depth).toEqual(expect.any(Number));
    expect(q.body.workers).toEqual([expect.objectContaining({ concurrency: 2, busy: expect.any(Number) })]);
    expect(q.body.inFlight.every((j: { jobId: string }) => typeof j.jobId === 'string')).toBe(true);
  });
});
