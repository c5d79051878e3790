import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AssetFile, SourceFile } from '../../domain/video/ffmpeg-args.js';
import type { SourceRecord } from '../../domain/video/source.js';
import type { BlobStore } from '../../infra/blobs/types.js';
import type { AssetStore } from './assets.js';
import { sourceKeys, type SourceStore } from './sources.js';

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

/** Whether preprocessing found the source lacking something (no_audio, no_video). */
const has = (record: SourceRecord, code: string) => record.diagnostics.some((d) => d.code === code);

/**
 * Copies the media of the long-form sources a film cuts into `dir`; a source's record says which
 * streams it has. Only the organization's own (checked at submission too); a deleted one is missing.
 */
export async function copySources(blobs: BlobStore, sources: Pick<SourceStore, 'get'>, orgId: string, ids: readonly string[], dir: string): Promise<Record<string, SourceFile>> {
  const files: Record<string, SourceFile> = {};
  for (const id of ids) {
    const record = await sources.get(orgId, id);
    const body = record ? await blobs.get(sourceKeys.media(id)) : null;
    if (!record || !body) continue;
    const file = path.join(dir, `source-${id}`);
    await pipeline(body.body, createWriteStream(file));
    files[id] = { path: file, video: !has(record, 'no_video') && (record.width !== null || record.mimetype.startsWith('video/')), audio: !has(record, 'no_audio') };
  }
  return files;
}
