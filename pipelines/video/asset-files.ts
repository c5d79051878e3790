import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AssetFile } from '../../domain/video/ffmpeg-args.js';
import type { AssetStore } from './assets.js';

/**
 * Copies a film's assets out of the blob store into `dir`, since ffmpeg reads files. Another
 * organization's asset (and a font) is left out: ffmpeg-args then reports it missing.
 */
export async function copyAssets(assets: AssetStore, orgId: string, ids: readonly string[], dir: string): Promise<Record<string, AssetFile>> {
  const files: Record<string, AssetFile> = {};
  for (const id of ids) {
    const meta = await assets.meta(id);
    if (!meta || meta.orgId !== orgId || meta.kind === 'font') continue;
    const body = await assets.open(id);
    if (!body) continue;
    const file = path.join(dir, id);
    await pipeline(body.body, createWriteStream(file));
    files[id] = { path: file, kind: meta.kind };
  }
  return files;
}
