import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoService, videoParts } from '../services/video.js';
import { startTestProcess } from './support/process.js';
import { makeMedia } from './fixtures/video-media.js';
import { videoClient } from './fixtures/video-client.js';

/**
 * POST /api/preview: a still of the scene under a time, drawn by a real ffmpeg, answered as PNG or
 * JPEG, cached by hash; bad bodies are 400s naming the field, other organizations' assets refused.
 */

let p: Awaited<ReturnType<typeof startTestProcess>>;
let pngAsset = '';

beforeAll(async () => {
  p = await startTestProcess({ services: [videoService], env: { PREVIEW_MAX_QUEUED_PER_ORG: '2' } });
  const r = await videoClient(p.url, 'key_a').upload('/api/assets', (await makeMedia()).png, 'still.png');
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  pngAsset = r.body.assets[0].assetId;
}, 60_000);
afterAll(async () => {
  await p?.stop();
});

async function preview(body: unknown, key = 'key_a') {
  const res = await fetch(`${p.url}/api/preview`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), etag: res.headers.get('etag'), bytes, json: () => JSON.parse(bytes.toString('utf8')) };
}

/** The image's average colour, read back by ffmpeg scaling it to one pixel. */
function averageRgb(image: Buffer): Promise<[number, number, number]> {
  return new Promise((resolve, reject) => {
    const ff = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', 'pipe:0', '-vf', 'scale=1:1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
    const out: Buffer[] = [];
    ff.stdout.on('data', (c: Buffer) => out.push(c));
    ff.on('error', reject);
    ff.on('close', () => {
      const b = Buffer.concat(out);
      resolve([b[0]!, b[1]!, b[2]!]);
    });
    ff.stdin.end(image);
  });
}

const TWO_SCENES = ['film "Stills"', 'scene "Red" 2s', '  background #ff0000', '  transition fade 0.5s', 'scene "Blue" 2s', '  background #0000ff', '  text "Blue"'].join('\n');

describe('POST /api/preview', () => {
  it('answers a 640×360 PNG of the scene under the time: the first scene before the cut, the second after it', async () => {
    const red = await preview({ source: TWO_SCENES, at: 0.5, format: 'png' });
    expect(red.status, red.bytes.toString()).toBe(200);
    expect(red.type).toBe('image/png');
    expect(red.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    // IHDR: width and height, big-endian, at bytes 16 and 20.
    expect([red.bytes.readUInt32BE(16), red.bytes.readUInt32BE(20)]).toEqual([640, 360]);
    const [r1, , b1] = await averageRgb(red.bytes);
    expect(r1).toBeGreaterThan(200);
    expect(b1).toBeLessThan(50);

    // The second scene starts at 1.5 s (2 s minus the 0.5 s transition).
    const blue = await preview({ source: TWO_SCENES, at: 3, format: 'png' });
    expect(blue.status).toBe(200);
    const [r2, , b2] = await averageRgb(blue.bytes);
    expect(b2).toBeGreaterThan(180);
    expect(r2).toBeLessThan(50);
  });

  it('answers JPEG by default', async () => {
    const r = await preview({ source: TWO_SCENES, at: 1 });
    expect(r.status).toBe(200);
    expect(r.type).toBe('image/jpeg');
    expect(r.bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  });

  it('draws the same graph at the same time once: the second request is answered from the cache with the same ETag', async () => {
    const source = `${TWO_SCENES}\n  text "cached"`;
    const previews = videoParts(p.platform).previews;
    const first = await preview({ source, at: 2.2, format: 'png' });
    const drawn = previews.drawn;
    // 2.2 s and 2.21 s fall on one frame at 15 fps: one still.
    const second = await preview({ source, at: 2.21, format: 'png' });
    expect(second.status).toBe(200);
    expect(second.etag).toBe(first.etag);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect(previews.drawn).toBe(drawn);
    const other = await preview({ source, at: 0.2, format: 'png' });
    expect(other.etag).not.toBe(first.etag);
    expect(previews.drawn).toBe(drawn + 1);
  });

  it('draws a still asked for twice at once only once', async () => {
    const source = `${TWO_SCENES}\n  text "twice"`;
    const previews = videoParts(p.platform).previews;
    const drawn = previews.drawn;
    const [a, b] = await Promise.all([preview({ source, at: 3, format: 'png' }), preview({ source, at: 3, format: 'png' })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.bytes.equals(b.bytes)).toBe(true);
    expect(previews.drawn).toBe(drawn + 1);
  });

  it("draws the organization's own image asset as a background", async () => {
    const r = await preview({ source: `film "A"\nscene "Pic" 2s\n  background asset:${pngAsset}`, at: 1, format: 'png' });
    expect(r.status, r.bytes.toString()).toBe(200);
    expect(r.type).toBe('image/png');
  });

  it("refuses another organization's asset, naming it", async () => {
    const r = await preview({ source: `film "A"\nscene "Pic" 2s\n  background asset:${pngAsset}`, at: 1 }, 'key_b');
    expect(r.status).toBe(400);
    expect(r.json().message).toContain(`asset:${pngAsset}`);
  });

  it('answers 400 compile_failed with the diagnostic at its line for a script with an error', async () => {
    const r = await preview({ source: 'film "A"\nscene "One" 2s\n  backgrund #fff', at: 0 });
    expect(r.status).toBe(400);
    const body = r.json();
    expect(body.error).toBe('compile_failed');
    expect(body.diagnostics[0]).toMatchObject({ level: 'error', line: 3 });
  });

  it.each([
    [{ source: TWO_SCENES, at: 99 }, 'at: 99 is past the end of the film'],
    [{ source: TWO_SCENES, at: -1 }, 'at'],
    [{ source: TWO_SCENES }, 'at'],
    [{ source: TWO_SCENES, at: 1, format: 'gif' }, 'format'],
    [{ source: TWO_SCENES, at: 1, extra: true }, 'extra'],
    [{ source: '', at: 1 }, 'source'],
  ])('answers 400 validation_error naming the field for %j', async (body, named) => {
    const r = await preview(body);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ error: 'validation_error' });
    expect(r.json().message).toContain(named);
  });

  it('refuses an organization more than PREVIEW_MAX_QUEUED_PER_ORG stills waiting at once with 429, without holding up another', async () => {
    const film = TWO_SCENES.replace('"Stills"', '"Quota"');
    const [ofA, ofB] = await Promise.all([
      Promise.all([0.5, 1, 1.5, 2.5, 3].map((at) => preview({ source: film, at, format: 'jpeg' }))),
      preview({ source: film, at: 0.5, format: 'jpeg' }, 'key_b'),
    ]);
    const refused = ofA.filter((r) => r.status === 429);
    // Two wait or draw (one ffmpeg at a time); the rest arrive while both are still pending.
    expect(ofA.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.json()).toMatchObject({ error: 'preview_quota', limit: 'PREVIEW_MAX_QUEUED_PER_ORG' });
    expect(refused[0]!.json().message).toMatch(/at most 2 at once \(PREVIEW_MAX_QUEUED_PER_ORG\)/);
    expect(ofB.status).toBe(200);
    // Once answered, the organization may ask again.
    expect((await preview({ source: film, at: 3.5, format: 'jpeg' })).status).toBe(200);
  });

  it('needs a credential', async () => {
    const r = await preview({ source: TWO_SCENES, at: 1 }, 'nope');
    expect(r.status).toBe(401);
  });
});
