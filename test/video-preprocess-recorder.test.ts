import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceSchema } from '../schemas/http/video.js';
import { videoService } from '../services/video.js';
import { preprocessStatusTopicOf, type PreprocessEvent, type PreprocessOutcome } from '../pipelines/video/preprocess-topics.js';
import { sourceKeys } from '../pipelines/video/sources.js';
import { encodeJson } from '../pipelines/video/topics.js';
import { videoClient } from './fixtures/video-client.js';
import { startTestProcess } from './support/process.js';

/**
 * The HTTP side's recorder of preprocess status events, fed by hand on the real (embedded) bus,
 * with no worker: an event counts only for the job the record names; a finished job's events,
 * delivered again, change nothing; a stale job's outcome and the thumbnails the record does not
 * name are removed.
 */

let p: Awaited<ReturnType<typeof startTestProcess>>;
let a: ReturnType<typeof videoClient>;
const mp4 = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=10:duration=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+frag_keyframe+empty_moov', '-f', 'mp4', '-']);

beforeAll(async () => {
  p = await startTestProcess({ services: [videoService], role: 'api' });
  a = videoClient(p.url, 'key_a');
});
afterAll(async () => {
  await p?.stop();
});

const source = async (id: string) => sourceSchema.parse((await a.call('GET', `/api/sources/${id}`)).body);
const send = (e: Omit<PreprocessEvent, 'orgId' | 'workerId' | 'at'>) =>
  p.platform.bus.send(preprocessStatusTopicOf(p.platform.config.PREPROCESS_TOPIC), [{ key: e.sourceId, value: encodeJson({ ...e, orgId: 'org_a', workerId: 'test', at: Date.now() }) }]);
/** What a worker stores before it reports a job complete: one thumbnail, one shot, one cue. */
async function stored(sourceId: string, jobId: string, thumbId: string): Promise<void> {
  await p.platform.blobs.put(sourceKeys.thumbnail(sourceId, thumbId), Buffer.from('jpeg'), 'image/jpeg');
  const outcome: PreprocessOutcome = {
    jobId,
    status: 'complete',
    durationSeconds: 1,
    width: 160,
    height: 90,
    transcript: [{ start: 0, end: 1, text: `said in ${jobId}` }],
    shots: [{ index: 0, start: 0, end: 1, thumbnailId: thumbId }],
    thumbnails: [{ id: thumbId, time: 0.5 }],
    silences: [],
    diagnostics: [],
  };
  await p.platform.blobs.put(sourceKeys.outcome(sourceId, jobId), encodeJson(outcome), 'application/json');
}
async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const exists = (key: string) => p.platform.blobs.exists(key);

describe('preprocess status recorder', () => {
  it('records the named job once, ignores its events delivered again, and removes what a stale job left', async () => {
    const id = (await a.upload('/api/sources/upload', mp4, 'talk.mp4')).body.id as string;
    expect((await a.call('POST', `/api/sources/${id}/preprocess`)).status).toBe(202);
    const first = (await source(id)).preprocess.jobId!;

    // An event of a job the record does not name is not recorded.
    await send({ jobId: 'pre_other', sourceId: id, status: 'running', progress: 0.5 });
    await send({ jobId: first, sourceId: id, status: 'running', progress: 0.05 });
    const running = await until('running', () => source(id), (s) => s.preprocess.status === 'running');
    expect(running.preprocess.progress).toBe(0.05);

    await stored(id, first, 'th_1111111111111111');
    await send({ jobId: first, sourceId: id, status: 'complete', progress: 1 });
    const done = await until('complete', () => source(id), (s) => s.preprocess.status === 'complete');
    expect(done).toMatchObject({ status: 'ready', transcript: [{ text: `said in ${first}` }], thumbnails: [{ id: 'th_1111111111111111' }] });

    // The same job's events again (a redelivered job reports its stored outcome): nothing moves.
    await send({ jobId: first, sourceId: id, status: 'running', progress: 0.05 });
    await send({ jobId: first, sourceId: id, status: 'complete', progress: 1 });
    // A stale job's event after them, as a marker: once its outcome is removed, they were handled.
    await stored(id, 'pre_marker', 'th_5555555555555555');
    await send({ jobId: 'pre_marker', sourceId: id, status: 'complete', progress: 1 });
    await until('marker handled', () => exists(sourceKeys.outcome(id, 'pre_marker')), (e) => !e);
    expect(await source(id)).toEqual(done);

    // Preprocessed again: the first job's outcome goes; its thumbnail stays while the record names it.
    expect((await a.call('POST', `/api/sources/${id}/preprocess`)).status).toBe(202);
    const second = (await source(id)).preprocess.jobId!;
    expect(second).not.toBe(first);
    expect(await exists(sourceKeys.outcome(id, first))).toBe(false);

    // The first job run again (its message redelivered): what it stored is stale and removed,
    // except the thumbnail the record still names.
    await stored(id, first, 'th_2222222222222222');
    await send({ jobId: first, sourceId: id, status: 'complete', progress: 1 });
    await until('stale outcome removed', () => exists(sourceKeys.outcome(id, first)), (e) => !e);
    expect(await exists(sourceKeys.thumbnail(id, 'th_2222222222222222'))).toBe(false);
    expect(await exists(sourceKeys.thumbnail(id, 'th_1111111111111111'))).toBe(true);

    // The second job completes: the first job's thumbnail, no longer named, goes.
    await stored(id, second, 'th_3333333333333333');
    await send({ jobId: second, sourceId: id, status: 'complete', progress: 1 });
    const again = await until('second complete', () => source(id), (s) => s.preprocess.status === 'complete' && s.preprocess.jobId === second);
    expect(again.thumbnails.map((t) => t.id)).toEqual(['th_3333333333333333']);
    expect(await exists(sourceKeys.thumbnail(id, 'th_1111111111111111'))).toBe(false);

    // Deleted: a late outcome of its job leaves nothing either.
    expect((await a.call('DELETE', `/api/sources/${id}`)).status).toBe(204);
    expect(await exists(sourceKeys.outcome(id, second))).toBe(false);
    await stored(id, second, 'th_4444444444444444');
    await send({ jobId: second, sourceId: id, status: 'complete', progress: 1 });
    await until('late outcome removed', () => exists(sourceKeys.outcome(id, second)), (e) => !e);
    expect(await exists(sourceKeys.thumbnail(id, 'th_4444444444444444'))).toBe(false);
  });
});
