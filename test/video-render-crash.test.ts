import { once } from 'node:events';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { videoService } from '../services/video.js';
import { kill, spawnFixture, type Child } from './fixtures/bus-crash-harness.js';
import { videoClient } from './fixtures/video-client.js';
import { ffprobe } from './fixtures/video-media.js';
import { requireAddress, shouldRun } from './support/infra.js';
import { startTestProcess } from './support/process.js';

/**
 * A render worker process (`--role=render`, fed through Kafka) SIGKILLed in the middle of a render:
 * its job's message was not committed, so Kafka delivers it to the next worker, which renders it;
 * the job completes once, with one output file.
 */

const children: Child[] = [];
let api: Awaited<ReturnType<typeof startTestProcess>> | undefined;
afterAll(async () => {
  await Promise.all(children.map((c) => kill(c, 'SIGKILL')));
  await api?.stop();
});

describe.skipIf(!shouldRun('kafkaBrokers'))('render worker killed mid-render (Kafka)', () => {
  it('the job is picked up again by another worker and completes exactly once', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-render-crash-'));
    const shared = { KAFKA_BROKERS: requireAddress('kafkaBrokers'), BLOBS_DIR: path.join(dir, 'blobs'), RENDER_TOPIC: `render.jobs.t${process.pid}-${Date.now()}` };
    api = await startTestProcess({ services: [videoService], role: 'api', env: shared });
    const worker = (name: string) => {
      const c = spawnFixture('./video-render-child.ts', {
        ...shared,
        DATA_DIR: path.join(dir, name),
        CHDB_PATH: path.join(dir, name, 'clickhouse'),
        LOG_LEVEL: 'info',
        RENDER_PRESET: 'ultrafast',
        RENDER_THREADS: '1',
      });
      children.push(c);
      return c;
    };
    const first = worker('a');
    await first.line('ready', (l) => l === 'READY');

    const client = videoClient(api.url, 'key_a');
    // 27.5 s of film (2 s scenes, 0.5 s fades): long enough that the first worker is still encoding when the kill arrives, even on
    // a quiet machine where ffmpeg renders 720p at several times real time (a 12 s film once finished
    // between the progress the test saw and the kill).
    const SCENES = 18;
    const scenes = Array.from({ length: SCENES }, (_, i) => `scene "s${i}" 2s\n  title "Scene ${i}"\n  text "rendered twice, stored once"\n  transition fade 0.5s`).join('\n');
    const r = await client.call('POST', '/api/render', { source: `film "Crash"\nresolution 720\n${scenes}` });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const { jobId } = r.body as { jobId: string };

    // Killed once the worker reported progress: ffmpeg is encoding.
    for (;;) {
      const s = await client.call('GET', `/api/render/${jobId}`);
      expect(s.body.status).not.toMatch(/complete|failed/);
      if (s.body.status === 'rendering' && s.body.progress > 0) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    first.process.kill('SIGKILL');
    if (first.process.exitCode === null && first.process.signalCode === null) await once(first.process, 'exit');

    const second = worker('b');
    await second.line('ready', (l) => l === 'READY');
    const job = await client.settle(jobId, 150_000);
    expect(job).toMatchObject({ status: 'complete', progress: 1 });

    const completions = (c: Child) => c.lines.filter((l) => l.includes('"render complete"') && l.includes(jobId)).length;
    expect(completions(first)).toBe(0);
    expect(completions(second)).toBe(1);
    // One output: the MP4 and its record, no second copy, no scratch file left in the store.
    const stored = await readdir(path.join(dir, 'blobs', 'videos', 'org_a'));
    expect(stored.sort()).toEqual([`${jobId}.json`, `${jobId}.json.meta.json`, `${jobId}.mp4`, `${jobId}.mp4.meta.json`]);
    const video = await client.download(`/api/video/${jobId}`);
    const file = path.join(dir, 'out.mp4');
    await writeFile(file, video.bytes);
    const probed = await ffprobe(file);
    expect(probed).toMatchObject({ width: 1280, height: 720, codecs: ['audio:aac', 'video:h264'] });
    expect(Math.abs(probed.durationSeconds - (SCENES * 2 - (SCENES - 1) * 0.5))).toBeLessThanOrEqual(1 / 30);
    await kill(second, 'SIGTERM');
  }, 240_000);
});
