import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoService } from '../services/video.js';
import { candidatesResponseSchema, refinedSchema } from '../schemas/http/video-clips.js';
import { documentSchema } from '../schemas/http/video-documents.js';
import { sourceSchema } from '../schemas/http/video.js';
import { startTestProcess } from './support/process.js';
import { videoClient, type Body } from './fixtures/video-client.js';
import { makeSourceMedia, type MediaLayout } from './fixtures/source-media.js';

/**
 * Clips on media made here: flite speaks eleven sentences over a picture that cuts every 8 s
 * (red, testsrc2, blue, green, yellow), with the sentences as a mov_text track. A goal word that
 * was spoken finds a candidate; a refined window starts on a cut; a clip document renders to an
 * MP4 of the window's length with its caption burnt in; another organization sees nothing.
 */

const SAID = [
  'good morning and welcome to the show',
  'today we talk about the mountains',
  'the weather there changes quickly',
  'many people enjoy a long walk',
  'the trails are steep and narrow',
  'a volcano sleeps under the snow',
  'the volcano last woke long ago',
  'scientists measure the ground every day',
  'the village below is quiet',
  'tomorrow we visit the lakes',
  'thank you for listening',
];
const LAYOUT: MediaLayout = { sentences: SAID, spokenAt: SAID.map((_, i) => 0.5 + 3.5 * i), cuts: [9.2, 17.2, 25.2, 33.2], duration: 40, cueSeconds: 2.5 };

let p: Awaited<ReturnType<typeof startTestProcess>>;
let a: ReturnType<typeof videoClient>;
let b: ReturnType<typeof videoClient>;
let ready: ReturnType<typeof sourceSchema.parse>;
let bare: Body;

/** RGB of a frame of a video file at `t` seconds, cropped to a band. */
function band(file: string, t: number, crop: string): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-ss', String(t), '-i', file, '-frames:v', '1', '-vf', `crop=${crop}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-']);
}
const whitePixels = (rgb: Buffer) => {
  let n = 0;
  for (let i = 0; i + 2 < rgb.length; i += 3) if (rgb[i]! > 200 && rgb[i + 1]! > 200 && rgb[i + 2]! > 200) n++;
  return n;
};

beforeAll(async () => {
  p = await startTestProcess({ services: [videoService], role: 'all', env: { API_KEYS: 'org_a:key_a,org_b:key_b', VIDEO_ASR: 'off' } });
  a = videoClient(p.url, 'key_a');
  b = videoClient(p.url, 'key_b');
  const media = makeSourceMedia({ subtitleTrack: true, layout: LAYOUT });
  const uploaded = await a.upload('/api/sources/upload', media, 'talk.mp4');
  expect(uploaded.status).toBe(201);
  const { queued, source } = await a.preprocess(uploaded.body.id as string);
  expect(queued.status).toBe(202);
  ready = sourceSchema.parse(source);
  bare = (await a.upload('/api/sources/upload', media, 'talk.mp4')).body;
}, 180_000);
afterAll(async () => {
  await p?.stop();
});

describe('clips', () => {
  it('finds a candidate of 15–60 s for a spoken goal word, and none with a reason for an unspoken one', async () => {
    expect(ready.transcript.map((c) => c.text)).toEqual(SAID);
    const r = await a.call('POST', '/api/clips/candidates', { sourceId: ready.id, goal: 'volcanoes', maxCandidates: 3 });
    expect(r.status).toBe(200);
    const { candidates } = candidatesResponseSchema.parse(r.body);
    expect(candidates.length).toBeGreaterThan(0);
    const best = candidates[0]!;
    expect(best.matched_terms).toEqual(['volcano']);
    expect(best.text).toContain('a volcano sleeps under the snow');
    expect(best.end - best.start).toBeGreaterThanOrEqual(15);
    expect(best.end - best.start).toBeLessThanOrEqual(60);
    // The window runs along cue boundaries.
    expect(ready.transcript.some((c) => c.start === best.start)).toBe(true);
    expect(ready.transcript.some((c) => c.end === best.end)).toBe(true);

    const none = await a.call('POST', '/api/clips/candidates', { sourceId: ready.id, goal: 'submarine' });
    expect(none).toMatchObject({ status: 200, body: { candidates: [], reason: 'no goal term (submarine) is said in the transcript' } });
  });

  it('refines a window onto the shot cut within a second of its first sentence', async () => {
    // The volcano sentence starts at 18 s; the picture cuts at 17.2 s. The end, inside the sentence of 32–34.5 s, has no cut within a second.
    const r = await a.call('POST', '/api/clips/candidates/refine', { sourceId: ready.id, start: 18.4, end: 33 });
    expect(r.status).toBe(200);
    const refined = refinedSchema.parse(r.body);
    const cut = ready.shots.find((s) => Math.abs(s.start - 17.2) <= 0.2)!;
    expect(cut).toBeDefined();
    expect(refined).toEqual({ start: cut.start, end: 34.75, startsOn: 'cut', endsOn: 'sentence' });
  });

  it('drafts a script in memory, and renders a clip document to an MP4 of the window with its captions burnt in', async () => {
    const window = { sourceId: ready.id, start: 17.2, end: 28 };
    const draft = await a.call('POST', '/api/clips/draft', { ...window, name: 'Volcano' });
    expect(draft.status).toBe(200);
    expect(draft.body.source).toContain(`video source:${ready.id} from 17.2s to 28s`);
    expect(draft.body.source).toContain('caption "a volcano sleeps under the snow" at 0.8s to 3.3s');
    expect(draft.body.renderGraph).toMatchObject({ film: { title: 'Volcano', durationSeconds: 10.8 }, sources: [ready.id] });
    expect((await a.call('GET', '/api/documents')).body.documents).toEqual([]);

    const created = await a.call('POST', '/api/clips/documents', { ...window, name: 'Volcano' });
    expect(created.status).toBe(201);
    const doc = documentSchema.parse(created.body);
    expect(doc).toMatchObject({ version: 1, metadata: { clip: window }, source: draft.body.source });

    const queued = await a.call('POST', `/api/documents/${doc.id}/render`);
    expect(queued.status).toBe(202);
    const job = await a.settle(queued.body.jobId as string, 180_000);
    expect(job.status, JSON.stringify(job.errors)).toBe('complete');
    const mp4 = path.join(mkdtempSync(path.join(os.tmpdir(), 'weir-clip-')), 'clip.mp4');
    writeFileSync(mp4, Buffer.from(await (await fetch(job.output.url as string, { headers: { 'x-api-key': 'key_a' } })).arrayBuffer()));
    const duration = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', mp4]).toString());
    expect(Math.abs(duration - 10.8)).toBeLessThan(0.1);
    // The caption band near the bottom: white letters while the sentence is said (0.8–3.3 s), none in the pause after it (3.3–4.3 s).
    const caption = draft.body.renderGraph.scenes[0].layers.find((l: Body) => l.kind === 'caption');
    const crop = `1280:${caption.lineHeight as number}:0:${caption.y as number}`;
    const said = whitePixels(band(mp4, 2, crop));
    const pause = whitePixels(band(mp4, 3.8, crop));
    expect(said).toBeGreaterThan(200);
    expect(pause).toBe(0);
    // The picture is the source's: blue from its cut at 17.2 s.
    const [r, g, bl] = band(mp4, 3.8, '2:2:640:200');
    expect(bl).toBeGreaterThan(180);
    expect(r! + g!).toBeLessThan(100);
  }, 240_000);

  it('redrafts a clip document for a new window or goal as a new version, and exports it', async () => {
    const doc = (await a.call('POST', '/api/clips/documents', { sourceId: ready.id, start: 0, end: 20, name: 'Walks' })).body;
    const moved = await a.call('POST', `/api/clips/documents/${doc.id}/redraft`, { end: 16 }, { 'if-match': '"v1"' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ version: 2, metadata: { clip: { sourceId: ready.id, start: 0, end: 16 } } });
    expect(moved.body.source).toContain('from 0s to 16s');
    expect((await a.call('POST', `/api/clips/documents/${doc.id}/redraft`, { end: 18 }, { 'if-match': '"v1"' })).status).toBe(412);
    const inverted = await a.call('POST', `/api/clips/documents/${doc.id}/redraft`, { start: 19 });
    expect(inverted).toMatchObject({ status: 400, body: { error: 'invalid_window' } });

    const byGoal = await a.call('POST', `/api/clips/documents/${doc.id}/redraft`, { goal: 'volcano' });
    expect(byGoal.status).toBe(200);
    expect(byGoal.body.version).toBe(3);
    expect(byGoal.body.source).toContain('caption "a volcano sleeps under the snow"');
    // The best candidate, refined: its edges on a cut or a sentence with its margin, never mid-sentence.
    const { start, end } = byGoal.body.metadata.clip as { start: number; end: number };
    expect(ready.transcript.some((c) => c.start < start && start < c.end)).toBe(false);
    expect(ready.transcript.some((c) => c.start < end && end < c.end)).toBe(false);
    const unspoken = await a.call('POST', `/api/clips/documents/${doc.id}/redraft`, { goal: 'submarine' });
    expect(unspoken).toMatchObject({ status: 422, body: { error: 'no_candidates' } });

    const script = await fetch(`${p.url}/api/clips/documents/${doc.id}/export?format=script`, { headers: { 'x-api-key': 'key_a' } });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await script.text()).toBe(byGoal.body.source);
    const json = await a.call('GET', `/api/clips/documents/${doc.id}/export?format=json`);
    expect(json.body).toMatchObject({ id: doc.id, version: 3 });
    expect((await a.call('GET', `/api/clips/documents/${doc.id}/export?format=pdf`)).body.message).toMatch(/format/);

    const plain = (await a.call('POST', '/api/documents', { name: 'not a clip', source: 'film "x"\nscene "a" 2s\n  text "hi"' })).body;
    expect((await a.call('GET', `/api/clips/documents/${plain.id}/export`)).body.error).toBe('not_a_clip');
  });

  it("is 409 for a source that is not preprocessed and 404 for another organization's source or clip", async () => {
    for (const [path, body] of [
      ['/api/clips/candidates', { sourceId: bare.id, goal: 'volcano' }],
      ['/api/clips/candidates/refine', { sourceId: bare.id, start: 1, end: 20 }],
      ['/api/clips/draft', { sourceId: bare.id, start: 1, end: 20 }],
      ['/api/clips/documents', { sourceId: bare.id, start: 1, end: 20, name: 'x' }],
    ] as const) {
      const r = await a.call('POST', path, body);
      expect(r.status, path).toBe(409);
      expect(r.body.error).toBe('not_preprocessed');
      const theirs = await b.call('POST', path, { ...body, sourceId: ready.id });
      expect(theirs.status, path).toBe(404);
    }
    const doc = (await a.call('POST', '/api/clips/documents', { sourceId: ready.id, start: 0, end: 20, name: 'Mine' })).body;
    expect((await b.call('POST', `/api/clips/documents/${doc.id}/redraft`, { end: 15 })).status).toBe(404);
    expect((await b.call('GET', `/api/clips/documents/${doc.id}/export`)).status).toBe(404);
    // A script of another organization naming this source: an error diagnostic at its line, nothing rendered.
    const render = await b.call('POST', '/api/render', { source: `film "x"\nscene "a" 2s\n  video source:${ready.id} from 1s` });
    expect(render).toMatchObject({ status: 400, body: { error: 'compile_failed', diagnostics: [{ level: 'error', code: 'unknown-source', line: 3 }] } });
  });

  it('answers bad bodies with 400 naming the field', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['/api/clips/candidates', { sourceId: ready.id, goal: '' }, /goal/],
      ['/api/clips/candidates', { sourceId: ready.id, goal: 'x', maxCandidates: 0 }, /maxCandidates/],
      ['/api/clips/candidates', { goal: 'x' }, /sourceId/],
      ['/api/clips/candidates/refine', { sourceId: ready.id, start: 20, end: 10 }, /end/],
      ['/api/clips/draft', { sourceId: ready.id, start: -1, end: 10 }, /start/],
      ['/api/clips/documents', { sourceId: ready.id, start: 1, end: 10 }, /name/],
      ['/api/clips/documents', { sourceId: ready.id, start: 1, end: 700, name: 'x' }, /end/],
    ];
    for (const [path, body, field] of cases) {
      const r = await a.call('POST', path, body);
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.message).toMatch(field);
    }
    const past = await a.call('POST', '/api/clips/draft', { sourceId: ready.id, start: 30, end: 45 });
    expect(past).toMatchObject({ status: 400, body: { error: 'invalid_window' } });
    expect(past.body.message).toMatch(/^end: /);
  });
});
