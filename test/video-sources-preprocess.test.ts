import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoService } from '../services/video.js';
import { preprocessStateSchema, sourceSchema } from '../schemas/http/video.js';
import { startTestProcess } from './support/process.js';
import { videoClient, type Body } from './fixtures/video-client.js';
import { CUTS, DURATION, SENTENCES, SPOKEN_AT, makeSourceMedia, subtitlesSrt } from './fixtures/source-media.js';

/**
 * Preprocessing on media made here (flite speech over a picture that cuts at known times): shots
 * within 0.2 s of the cuts with one thumbnail each, silences and loudness, and the transcript from
 * an embedded mov_text track or from the sidecar subtitles, equal to the cues; tenant isolation.
 */

let p: Awaited<ReturnType<typeof startTestProcess>>;
let a: ReturnType<typeof videoClient>;

beforeAll(async () => {
  p = await startTestProcess({ services: [videoService], role: 'all', env: { API_KEYS: 'org_a:key_a,org_b:key_b', VIDEO_ASR: 'off' } });
  a = videoClient(p.url, 'key_a');
});
afterAll(async () => {
  await p?.stop();
});

async function upload(content: Buffer, subtitles?: string): Promise<Body> {
  const form = new FormData();
  form.append('file', new Blob([content]), 'talk.mp4');
  if (subtitles) form.append('subtitles', new Blob([subtitles]), 'talk.srt');
  const res = await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: { 'x-api-key': 'key_a' }, body: form });
  expect(res.status).toBe(201);
  return (await res.json()) as Body;
}

async function preprocessed(id: string): Promise<ReturnType<typeof sourceSchema.parse>> {
  const { queued, source } = await a.preprocess(id);
  expect(queued.status).toBe(202);
  expect(preprocessStateSchema.parse(queued.body)).toMatchObject({ status: 'queued', progress: 0 });
  return sourceSchema.parse(source);
}

const expectedTranscript = SENTENCES.map((text, i) => ({ start: SPOKEN_AT[i], end: SPOKEN_AT[i]! + 2.5, text }));

describe('source preprocessing', () => {
  it('finds the shots, a thumbnail each, silences, loudness and the embedded subtitle track as the transcript', async () => {
    const source = await upload(makeSourceMedia({ subtitleTrack: true }));
    const done = await preprocessed(source.id as string);
    expect(done).toMatchObject({ status: 'ready', preprocess: { status: 'complete', progress: 1 }, durationSeconds: DURATION, width: 320, height: 180 });
    expect(done.shots).toHaveLength(CUTS.length + 1);
    for (const [i, cut] of CUTS.entries()) {
      expect(Math.abs(done.shots[i + 1]!.start - cut)).toBeLessThanOrEqual(0.2);
      expect(done.shots[i]!.end).toBe(done.shots[i + 1]!.start);
    }
    expect(done.thumbnails.map((t) => t.id)).toEqual(done.shots.map((s) => s.thumbnailId));
    for (const t of done.thumbnails) {
      const res = await fetch(t.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      const jpeg = Buffer.from(await res.arrayBuffer());
      expect(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=width', '-of', 'csv=p=0', '-'], { input: jpeg }).toString().trim()).toBe('320');
    }
    // The first thumbnail is from the red shot: its centre pixel is red.
    const red = Buffer.from(await (await fetch(done.thumbnails[0]!.url)).arrayBuffer());
    const [r, g, bl] = execFileSync('ffmpeg', ['-v', 'error', '-i', '-', '-vf', 'crop=2:2:160:90', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { input: red });
    expect(r).toBeGreaterThan(200);
    expect(g! + bl!).toBeLessThan(80);

    expect(done.transcript).toEqual(expectedTranscript);
    expect(done.loudness!.integratedLufs).toBeLessThan(0);
    // Silence before the first sentence and between the two.
    expect(done.silences[0]!.start).toBe(0);
    expect(done.silences.some((s) => s.start > 2 && s.end < SPOKEN_AT[1]! + 0.5)).toBe(true);
    expect(done.diagnostics).toEqual([]);

    // Another organization can neither read nor start it; deleting removes the thumbnails too.
    const b = videoClient(p.url, 'key_b');
    expect((await b.call('GET', `/api/sources/${done.id}/preprocess`)).status).toBe(404);
    expect((await b.call('POST', `/api/sources/${done.id}/preprocess`)).status).toBe(404);
    expect((await a.call('DELETE', `/api/sources/${done.id}`)).status).toBe(204);
    expect((await fetch(done.thumbnails[0]!.url)).status).toBe(404);
  });

  it('takes the sidecar subtitles when the media has no track, and says so when there is no transcript at all', async () => {
    const bare = makeSourceMedia({ subtitleTrack: false });
    const withSidecar = await preprocessed((await upload(bare, subtitlesSrt())).id as string);
    expect(withSidecar.transcript).toEqual(expectedTranscript);
    expect(withSidecar.shots).toHaveLength(CUTS.length + 1);

    const without = await preprocessed((await upload(bare)).id as string);
    expect(without.transcript).toEqual([]);
    expect(without.diagnostics).toEqual([{ level: 'warning', code: 'no_transcript', message: 'no embedded subtitle track and no sidecar subtitles; speech recognition is off (VIDEO_ASR=off)' }]);
  });
});
