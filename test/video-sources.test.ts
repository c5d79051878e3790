import { execFileSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoService } from '../services/video.js';
import { sourceListSchema, sourceSchema } from '../schemas/http/video.js';
import { SUBTITLES_MAX_BYTES } from '../api/video/source-upload.js';
import { startTestProcess } from './support/process.js';
import { videoClient } from './fixtures/video-client.js';

/**
 * Sources: upload (with sidecar subtitles), registration from an asset or an address, the paged
 * list, read, delete, the public media address with ranges, scopes and tenant isolation.
 */

let p: Awaited<ReturnType<typeof startTestProcess>>;
let a: ReturnType<typeof videoClient>;
let b: ReturnType<typeof videoClient>;
const mp4 = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=10:duration=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+frag_keyframe+empty_moov', '-f', 'mp4', '-']);
const srt = Buffer.from('1\n00:00:00,000 --> 00:00:00,800\nHello there.\n');
const png = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=64x48', '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', '-']);

async function uploadSource(key: string, content: Buffer, fields: Record<string, string> = {}, subtitles?: Buffer) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([content]), 'talk.mp4');
  if (subtitles) form.append('subtitles', new Blob([subtitles]), 'talk.srt');
  const res = await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Every file under the blob store's sources folder, temporary ones included. */
async function storedFiles(root = path.join(p.dataDir, 'blobs', 'sources')): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name))).sort();
}

beforeAll(async () => {
  p = await startTestProcess({ services: [videoService], role: 'api', env: { API_KEYS: 'org_a:key_a,org_b:key_b,org_c:key_c', SOURCE_MAX_BYTES: String(mp4.length + 1024), PREPROCESS_MAX_CONCURRENT_JOBS: '2' } });
  a = videoClient(p.url, 'key_a');
  b = videoClient(p.url, 'key_b');
});
afterAll(async () => {
  await p?.stop();
});

describe('sources', () => {
  it('an upload with subtitles is stored, read, listed and served with ranges; another organization sees none of it', async () => {
    const up = await uploadSource('key_a', mp4, { name: 'Talk' }, srt);
    expect(up.status).toBe(201);
    const source = sourceSchema.parse(up.body);
    expect(source).toMatchObject({ name: 'Talk', status: 'registered', mimetype: 'video/mp4', sizeBytes: mp4.length, hasSubtitles: true, preprocess: { status: 'none', progress: 0 }, transcript: [], diagnostics: [] });
    // ffprobe read it at registration, before any preprocessing.
    expect(source).toMatchObject({ durationSeconds: 1, width: 160, height: 90, streams: [{ index: 0, type: 'video', codec: 'h264', width: 160, height: 90, fps: 10 }] });
    expect(source.id).toMatch(/^src_[0-9a-f]{32}$/);
    expect((up.body as { orgId?: string }).orgId).toBeUndefined();

    expect((await a.call('GET', `/api/sources/${source.id}`)).body).toEqual(up.body);
    const list = sourceListSchema.parse((await a.call('GET', '/api/sources')).body);
    expect(list.sources.map((s) => s.id)).toEqual([source.id]);

    const media = await fetch(source.mediaUrl);
    expect(media.status).toBe(200);
    expect(media.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await media.arrayBuffer()).equals(mp4)).toBe(true);
    const part = await fetch(source.mediaUrl, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${mp4.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(mp4.subarray(10, 20))).toBe(true);
    expect((await fetch(source.mediaUrl, { headers: { range: `bytes=${mp4.length + 5}-` } })).status).toBe(416);

    // Tenant isolation: read, list and delete by another organization find nothing.
    expect((await b.call('GET', `/api/sources/${source.id}`)).status).toBe(404);
    expect((await b.call('GET', '/api/sources')).body.sources).toEqual([]);
    expect((await b.call('DELETE', `/api/sources/${source.id}`)).status).toBe(404);
    expect((await a.call('GET', `/api/sources/${source.id}`)).status).toBe(200);

    expect((await a.call('DELETE', `/api/sources/${source.id}`)).status).toBe(204);
    expect((await a.call('GET', `/api/sources/${source.id}`)).status).toBe(404);
    expect((await fetch(source.mediaUrl)).status).toBe(404);
    expect((await a.call('GET', '/api/sources')).body.sources).toEqual([]);
    expect((await a.call('DELETE', `/api/sources/${source.id}`)).status).toBe(404);
  });

  it('refuses content that is not media, bad subtitles, a file over the limit and a missing file, naming what is wrong and storing nothing', async () => {
    const before = await storedFiles();
    const image = await uploadSource('key_a', png);
    expect(image.status).toBe(415);
    expect(image.body.message).toMatch(/is image\/png; accepted: video\/mp4/);
    // An MP4 by its first bytes that ffprobe cannot read: refused with ffprobe's reason.
    const damaged = await uploadSource('key_a', Buffer.concat([mp4.subarray(0, 0x24), Buffer.alloc(4096, 7)]));
    expect(damaged.status).toBe(415);
    expect(damaged.body).toMatchObject({ error: 'unreadable_media', message: 'ffprobe cannot read the media: moov atom not found' });
    // Refused after the media streamed to storage: it is removed again.
    const subs = await uploadSource('key_a', mp4, {}, Buffer.from('no cues here'));
    expect(subs.status).toBe(400);
    expect(subs.body.message).toMatch(/^subtitles: not an SRT or WebVTT file/);
    const badName = await uploadSource('key_a', mp4, { name: '' });
    expect(badName.status).toBe(400);
    // Far over the limit: refused while it streams.
    const big = await uploadSource('key_a', Buffer.concat([mp4, Buffer.alloc(4 * 1024 * 1024)]));
    expect(big.status).toBe(413);
    expect(big.body.message).toMatch(/"file" is larger than the limit of \d+ bytes/);
    const bigSubtitles = await uploadSource('key_a', mp4, {}, Buffer.concat([srt, Buffer.alloc(SUBTITLES_MAX_BYTES)]));
    expect(bigSubtitles.status).toBe(413);
    expect(bigSubtitles.body.message).toMatch(/"subtitles" is larger than the limit of \d+ bytes/);
    const form = new FormData();
    form.append('name', 'x');
    const none = await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: { 'x-api-key': 'key_a' }, body: form });
    expect(none.status).toBe(400);
    expect(await storedFiles()).toEqual(before);
    expect((await a.call('GET', '/api/sources')).body.sources).toEqual([]);
  });

  it("registers from the organization's asset, never from another's", async () => {
    const asset = await a.upload('/api/assets', mp4, 'clip.mp4', 'video/mp4');
    expect(asset.status).toBe(201);
    const assetId = asset.body.assets[0].assetId as string;
    const foreign = await b.call('POST', '/api/sources', { name: 'Theirs', assetId });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toMatch(/^assetId: the organization has no asset/);
    const mine = await a.call('POST', '/api/sources', { name: 'Mine', assetId });
    expect(mine.status).toBe(201);
    expect(mine.body).toMatchObject({ name: 'Mine', mimetype: 'video/mp4', sizeBytes: mp4.length, hasSubtitles: false, durationSeconds: 1, width: 160 });
    expect((await a.call('DELETE', `/api/sources/${mine.body.id}`)).status).toBe(204);
    // An asset over SOURCE_MAX_BYTES is refused as it is copied, and nothing of it stays.
    const before = await storedFiles();
    const big = await a.upload('/api/assets', Buffer.concat([mp4, Buffer.alloc(64 * 1024)]), 'big.mp4', 'video/mp4');
    const tooBig = await a.call('POST', '/api/sources', { name: 'Big', assetId: big.body.assets[0].assetId as string });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.message).toMatch(/^the asset is larger than the limit of \d+ bytes/);
    expect(await storedFiles()).toEqual(before);
  });

  it('refuses an address on a private network (the webhooks outbound safety) and a body with neither asset nor url', async () => {
    const server = http.createServer((_req, res) => res.end(mp4));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const literal = await a.call('POST', '/api/sources', { name: 'Local', url: `http://127.0.0.1:${port}/talk.mp4` });
      expect(literal.status).toBe(400);
      expect(literal.body.message).toMatch(/^url: destination refused: 127\.0\.0\.1 is a private, loopback or link-local address/);
      const named = await a.call('POST', '/api/sources', { name: 'Local', url: `http://localhost:${port}/talk.mp4` });
      expect(named.status).toBe(400);
      expect(named.body.message).toMatch(/^url: destination refused: localhost resolves to/);
    } finally {
      server.close();
    }
    expect((await a.call('POST', '/api/sources', { name: 'Nothing' })).status).toBe(400);
    expect((await a.call('POST', '/api/sources', { name: 'Ftp', url: 'ftp://example.com/a.mp4' })).body.message).toMatch(/only http and https/);
  });

  it('bounds the preprocessing jobs an organization has queued or running (429 naming the limit), not another organization', async () => {
    // An API process without workers: queued jobs stay queued.
    const c = videoClient(p.url, 'key_c');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await uploadSource('key_c', mp4)).body.id as string);
    for (const id of ids.slice(0, 2)) expect((await c.call('POST', `/api/sources/${id}/preprocess`)).status).toBe(202);
    const over = await c.call('POST', `/api/sources/${ids[2]}/preprocess`);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error: 'preprocess_quota', limit: 'PREPROCESS_MAX_CONCURRENT_JOBS' });
    expect(over.body.message).toMatch(/has 2 sources queued or running for preprocessing; at most 2 at once \(PREPROCESS_MAX_CONCURRENT_JOBS\)/);
    expect((await c.call('GET', `/api/sources/${ids[2]}`)).body.preprocess).toEqual({ status: 'none', progress: 0 });
    // Asking again for a job already queued is no new job.
    expect((await c.call('POST', `/api/sources/${ids[0]}/preprocess`)).status).toBe(202);
    // Another organization is not held back.
    const other = (await uploadSource('key_b', mp4)).body.id as string;
    expect((await b.call('POST', `/api/sources/${other}/preprocess`)).status).toBe(202);
    // A deleted source's job no longer counts.
    expect((await c.call('DELETE', `/api/sources/${ids[0]}`)).status).toBe(204);
    expect((await c.call('POST', `/api/sources/${ids[2]}/preprocess`)).status).toBe(202);
  });

  it('registers from an address, streaming it: refused past the limit, when not media and when the answer breaks off, storing nothing', async () => {
    // A process that may reach this machine's addresses (as a test on loopback needs).
    const open = await startTestProcess({ services: [videoService], role: 'api', env: { SOURCE_MAX_BYTES: String(mp4.length + 1024), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    const server = http.createServer((req, res) => {
      if (req.url === '/talk.mp4') return res.end(mp4);
      if (req.url === '/big.mp4') {
        // No declared length: the limit holds on what streams.
        res.write(mp4);
        return res.end(Buffer.alloc(64 * 1024));
      }
      if (req.url === '/cut.mp4') return res.write(mp4.subarray(0, 100), () => res.socket?.destroy());
      res.end('plain text, not media');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const c = videoClient(open.url, 'key_a');
    const root = path.join(open.dataDir, 'blobs', 'sources');
    try {
      const ok = await c.call('POST', '/api/sources', { name: 'Remote', url: `${base}/talk.mp4` });
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
      expect(ok.body).toMatchObject({ name: 'Remote', mimetype: 'video/mp4', sizeBytes: mp4.length, durationSeconds: 1, width: 160 });
      expect(Buffer.from(await (await fetch(ok.body.mediaUrl as string)).arrayBuffer()).equals(mp4)).toBe(true);
      const kept = await storedFiles(root);
      const big = await c.call('POST', '/api/sources', { name: 'Big', url: `${base}/big.mp4` });
      expect(big.status).toBe(413);
      expect(big.body.message).toMatch(/^the media at the url is larger than the limit of \d+ bytes/);
      const text = await c.call('POST', '/api/sources', { name: 'Text', url: `${base}/notes.txt` });
      expect(text.status).toBe(415);
      const cut = await c.call('POST', '/api/sources', { name: 'Cut', url: `${base}/cut.mp4` });
      expect(cut.status).toBe(400);
      expect(cut.body).toMatchObject({ error: 'source_fetch_failed' });
      expect(await storedFiles(root)).toEqual(kept);
      expect((await c.call('GET', '/api/sources')).body.sources).toHaveLength(1);
    } finally {
      server.close();
      await open.stop();
    }
  });

  it('a principal without the sources scopes is refused', async () => {
    const created = await a.call('POST', '/api/principals', { name: 'renderer', scopes: ['render:read'] });
    expect(created.status).toBe(201);
    const limited = videoClient(p.url, created.body.apiKey as string);
    expect((await limited.call('GET', '/api/sources')).status).toBe(403);
    expect((await limited.call('POST', '/api/sources', { name: 'x', url: 'https://example.com/a.mp4' })).status).toBe(403);
  });
});
