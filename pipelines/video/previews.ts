import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { lru } from 'tiny-lru';
import { stillArgs, type StillFormat } from '../../domain/video/ffmpeg-args.js';
import type { RenderGraph } from '../../domain/video/render-graph.js';
import type { AssetStore } from './assets.js';
import { copyAssets, copySources } from './asset-files.js';
import type { SourceStore } from './sources.js';
import type { BlobStore } from '../../infra/blobs/types.js';
import { semaphore } from './worker.js';

/**
 * Preview stills for the studio: one frame of a compiled film drawn by ffmpeg, kept in a small
 * in-process cache keyed by the hash of organization, graph, time and format (the same script at the
 * same cursor is drawn once, and requests for a still being drawn share it), with at most
 * `concurrency` ffmpeg processes at once so previews cannot crowd out the API. A still whose
 * caller has gone (a cursor dragged on) before its turn is not drawn. One organization may have at
 * most `maxQueuedPerOrg` stills waiting or drawing, so it cannot queue the others behind its own.
 */

export interface PreviewOptions {
  blobs: BlobStore;
  assets: AssetStore;
  sources: Pick<SourceStore, 'get'>;
  concurrency: number;
  /** Stills of one organization waiting for ffmpeg or under it. */
  maxQueuedPerOrg: number;
  /** Stills kept. */
  cacheSize: number;
  /** An ffmpeg that takes longer is stopped. */
  timeoutMs: number;
}

export class PreviewFailedError extends Error {}
export class PreviewAbandonedError extends Error {}
export class PreviewQuotaError extends Error {}

export type Previews = ReturnType<typeof createPreviews>;

export function createPreviews(opts: PreviewOptions) {
  const cache = lru<Buffer>(opts.cacheSize);
  const limit = semaphore(opts.concurrency);
  const drawing = new Map<string, Promise<Buffer>>();
  const queuedByOrg = new Map<string, number>();
  let drawn = 0;

  function queue(orgId: string, job: () => Promise<Buffer>): Promise<Buffer> {
    const queued = queuedByOrg.get(orgId) ?? 0;
    if (queued >= opts.maxQueuedPerOrg) {
      throw new PreviewQuotaError(`the organization has ${queued} stills waiting or being drawn; at most ${opts.maxQueuedPerOrg} at once (PREVIEW_MAX_QUEUED_PER_ORG); retry when one is answered`);
    }
    queuedByOrg.set(orgId, queued + 1);
    return limit(job).finally(() => {
      const left = queuedByOrg.get(orgId)! - 1;
      if (left === 0) queuedByOrg.delete(orgId);
      else queuedByOrg.set(orgId, left);
    });
  }

  async function draw(orgId: string, graph: RenderGraph, at: number, format: StillFormat): Promise<Buffer> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-preview-'));
    try {
      const assets = await copyAssets(opts.assets, orgId, graph.assets, dir);
      const sources = await copySources(opts.blobs, opts.sources, orgId, graph.sources ?? [], dir);
      return await runFfmpeg(stillArgs(graph, { assets, sources, at, format }), opts.timeoutMs, dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function still(orgId: string, graph: RenderGraph, at: number, format: StillFormat, signal?: AbortSignal): Promise<{ image: Buffer; key: string }> {
    // Organization in the key: a cached still of one organization's assets is never another's.
    const key = createHash('sha256').update(JSON.stringify([orgId, graph, at, format])).digest('hex');
    const hit = cache.get(key);
    if (hit) return { image: hit, key };
    let pending = drawing.get(key);
    if (!pending) {
      pending = queue(orgId, async () => {
        if (signal?.aborted) throw new PreviewAbandonedError('the caller left before its still was drawn');
        const image = await draw(orgId, graph, at, format);
        drawn++;
        cache.set(key, image);
        return image;
      }).finally(() => drawing.delete(key));
      drawing.set(key, pending);
    }
    try {
      return { image: await pending, key };
    } catch (err) {
      // The caller that started it left; one still waiting asks again.
      if (err instanceof PreviewAbandonedError && !signal?.aborted) return still(orgId, graph, at, format, signal);
      throw err;
    }
  }

  return {
    still,
    /** How many stills ffmpeg has drawn (cache misses). */
    get drawn() {
      return drawn;
    },
  };
}

function runFfmpeg(args: string[], timeoutMs: number, scrub: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const proc = spawn('ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.stdout.on('data', (c: Buffer) => out.push(c));
    proc.stderr.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-2000)));
    proc.on('error', (e) => {
      clearTimeout(timer);
      reject(new PreviewFailedError(`ffmpeg could not start: ${e.message}`));
    });
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      const image = Buffer.concat(out);
      if (code === 0 && image.length > 0) resolve(image);
      else reject(new PreviewFailedError(signal ? `ffmpeg took longer than ${timeoutMs} ms` : `ffmpeg failed: ${err.replaceAll(scrub, '').trim().split('\n').pop() ?? code}`));
    });
  });
}
