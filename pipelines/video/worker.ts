import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import { MissingAssetError, type EncodeOptions } from '../../domain/video/ffmpeg-args.js';
import type { RenderGraph } from '../../domain/video/render-graph.js';
import type { AssetStore } from './assets.js';
import type { SourceStore } from './sources.js';
import { copyAssets, copySources } from './asset-files.js';
import { WORKER_BEAT_MS } from './job-store.js';
import type { RenderError, RenderOutput } from './ports.js';
import { RenderFailedError, renderFilm } from './render-film.js';
import { encodeJson, jobMessageSchema, parseJson, statusTopicOf, workerGroupOf, type JobMessage, type StatusEvent } from './topics.js';

/**
 * A render worker: takes jobs off `render.jobs` (at most `concurrency` ffmpeg processes at once),
 * renders each to a scratch file, stores it in the blob store under a key fixed by the job id and
 * reports on the status topic. A job's offset is committed only once it is complete or failed: a
 * worker killed mid-render leaves it to be delivered again, and the rerun, finding the stored
 * output of an earlier run that got that far, reports it instead of rendering a second file.
 */

export interface RenderWorkerOptions {
  platform: Platform;
  assets: AssetStore;
  sources: Pick<SourceStore, 'get'>;
  topic: string;
  concurrency: number;
  encode: Partial<EncodeOptions>;
  stallMs: number;
}

/** A status event for the same job at most this often while it renders. */
const PROGRESS_EVERY_MS = 500;

export const outputKeyOf = (orgId: string, jobId: string) => `videos/${orgId}/${jobId}.mp4`;
const outputMetaKeyOf = (orgId: string, jobId: string) => `videos/${orgId}/${jobId}.json`;
export const videoUrlOf = (jobId: string) => `/api/video/${jobId}`;


/** At most `limit` tasks at once; the rest wait their turn. */
export function semaphore(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** A JSON blob; null when there is none. */
export async function readJson<T>(platform: Platform, key: string): Promise<T | null> {
  const found = await platform.blobs.get(key);
  if (!found) return null;
  const chunks: Buffer[] = [];
  for await (const c of found.body) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}

export async function startRenderWorker(opts: RenderWorkerOptions): Promise<Stoppable> {
  const { platform, topic } = opts;
  const log = platform.log.child({ worker: 'render' });
  const workerId = `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const statusTopic = statusTopicOf(topic);
  const limit = semaphore(opts.concurrency);
  const active = new Set<string>();

  const send = (e: StatusEvent, key: string) => platform.bus.send(statusTopic, [{ key, value: encodeJson(e) }]);
  const jobEvent = (m: JobMessage, status: 'rendering' | 'complete' | 'failed', progress: number, extra: { output?: RenderOutput; errors?: RenderError[] } = {}) =>
    send({ kind: 'job', jobId: m.jobId, orgId: m.orgId, status, progress, ...extra, workerId, at: platform.clock.now() }, m.jobId);
  const beat = (stopping = false) =>
    send({ kind: 'worker', workerId, concurrency: opts.concurrency, busy: active.size, jobs: [...active], at: platform.clock.now(), ...(stopping ? { stopping } : {}) }, workerId);

  async function render(m: JobMessage): Promise<void> {
    const done = await readJson<RenderOutput>(platform, outputMetaKeyOf(m.orgId, m.jobId));
    if (done) {
      await jobEvent(m, 'complete', 1, { output: done });
      return;
    }
    active.add(m.jobId);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-render-'));
    try {
      await jobEvent(m, 'rendering', 0);
      const graph: RenderGraph = m.graph;
      const file = path.join(dir, 'film.mp4');
      let lastSent = platform.clock.now();
      let sending: Promise<void> = Promise.resolve();
      const rendered = await renderFilm({
        graph,
        assets: await copyAssets(opts.assets, m.orgId, m.graph.assets, dir),
        sources: await copySources(platform.blobs, opts.sources, m.orgId, m.graph.sources ?? [], dir),
        output: file,
        encode: opts.encode,
        scrub: `${dir}/`,
        stallMs: opts.stallMs,
        onProgress: (fraction) => {
          const now = platform.clock.now();
          if (now - lastSent < PROGRESS_EVERY_MS || fraction >= 1) return;
          lastSent = now;
          sending = sending.then(() => jobEvent(m, 'rendering', Math.round(fraction * 1000) / 1000)).catch((err: unknown) => log.warn({ err, jobId: m.jobId }, 'progress event not sent'));
        },
      });
      await sending;
      const stored = await platform.blobs.put(outputKeyOf(m.orgId, m.jobId), createReadStream(file), 'video/mp4');
      const output: RenderOutput = { url: videoUrlOf(m.jobId), durationSeconds: rendered.durationSeconds, width: rendered.width, height: rendered.height, sizeBytes: stored.sizeBytes };
      await platform.blobs.put(outputMetaKeyOf(m.orgId, m.jobId), encodeJson(output), 'application/json');
      await jobEvent(m, 'complete', 1, { output });
      log.info({ jobId: m.jobId, orgId: m.orgId, seconds: rendered.durationSeconds }, 'render complete');
    } catch (err) {
      // Anything else (the bus, the blob store) is no fault of the film: the batch is retried.
      if (!(err instanceof RenderFailedError || err instanceof MissingAssetError)) throw err;
      const error: RenderError = { code: err instanceof RenderFailedError ? err.code : 'missing_asset', message: err.message };
      log.warn({ jobId: m.jobId, error }, 'render failed');
      await jobEvent(m, 'failed', 0, { errors: [error] });
    } finally {
      active.delete(m.jobId);
      await rm(dir, { recursive: true, force: true });
    }
  }

  await beat();
  const timer = setInterval(() => void beat().catch((err: unknown) => log.warn({ err }, 'render worker heartbeat not sent')), WORKER_BEAT_MS);
  const sub = await platform.bus.subscribe({
    groupId: workerGroupOf(topic),
    topics: [topic],
    concurrency: opts.concurrency,
    eachBatch: async (batch) => {
      await Promise.all(
        batch.messages.map((msg) => {
          const parsed = jobMessageSchema.safeParse(parseJson(msg.value));
          if (!parsed.success) {
            log.error({ offset: msg.offset, partition: msg.partition, reason: parsed.error.message }, 'render job message is not a job; skipped');
            return Promise.resolve();
          }
          return limit(() => render(parsed.data));
        }),
      );
    },
  });
  return {
    async stop() {
      clearInterval(timer);
      await sub.stop();
      await beat(true).catch(() => undefined);
    },
    health: () => sub.health(),
  };
}
