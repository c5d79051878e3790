import { randomBytes } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import type { BlobStore } from '../../infra/blobs/types.js';

/**
 * Assets in the blob store: the bytes under `assets/<id>`, what they are under `asset-meta/<id>.json`
 * (the owner organization, the sniffed type). The type comes from the content, never from the name
 * or the client's Content-Type, and only kinds the renderer can use are taken.
 */

export type AssetKind = 'image' | 'video' | 'audio' | 'font';

export interface AssetRecord {
  assetId: string;
  orgId: string;
  filename: string;
  size: number;
  mimetype: string;
  kind: AssetKind;
  createdAt: string;
}

/** Media types taken, by what the content is. */
const KINDS: Record<string, AssetKind> = {
  'image/png': 'image',
  'image/jpeg': 'image',
  'image/webp': 'image',
  'image/gif': 'image',
  'video/mp4': 'video',
  'video/quicktime': 'video',
  'video/webm': 'video',
  'video/x-matroska': 'video',
  'audio/mpeg': 'audio',
  'audio/wav': 'audio',
  'audio/ogg': 'audio',
  'audio/x-m4a': 'audio',
  'audio/aac': 'audio',
  'audio/flac': 'audio',
  'font/ttf': 'font',
  'font/otf': 'font',
  'font/woff2': 'font',
};
export const ACCEPTED_TYPES = Object.keys(KINDS);

export class UnsupportedAssetError extends Error {}

const ASSET_ID = /^ast_[0-9a-f]{32}$/;
const bodyKey = (id: string) => `assets/${id}`;
const metaKey = (id: string) => `asset-meta/${id}.json`;

export type AssetStore = ReturnType<typeof createAssetStore>;

export function createAssetStore(blobs: BlobStore, now: () => number) {
  async function meta(assetId: string): Promise<AssetRecord | null> {
    if (!ASSET_ID.test(assetId)) return null;
    const found = await blobs.get(metaKey(assetId));
    if (!found) return null;
    const chunks: Buffer[] = [];
    for await (const c of found.body) chunks.push(c as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as AssetRecord;
  }
  return {
    /** Stores one upload; throws UnsupportedAssetError when the content is no type the renderer takes. */
    async put(orgId: string, filename: string, content: Buffer): Promise<AssetRecord> {
      const sniffed = await fileTypeFromBuffer(content);
      const kind = sniffed ? KINDS[sniffed.mime] : undefined;
      if (!sniffed || !kind) {
        throw new UnsupportedAssetError(`the content of ${JSON.stringify(filename)} is ${sniffed ? sniffed.mime : 'of no recognised media type'}; accepted: ${ACCEPTED_TYPES.join(', ')}`);
      }
      const record: AssetRecord = { assetId: `ast_${randomBytes(16).toString('hex')}`, orgId, filename, size: content.length, mimetype: sniffed.mime, kind, createdAt: new Date(now()).toISOString() };
      await blobs.put(bodyKey(record.assetId), content, record.mimetype);
      // The record last: an asset is there once it is complete.
      await blobs.put(metaKey(record.assetId), Buffer.from(JSON.stringify(record)), 'application/json');
      return record;
    },
    meta,
    /** The bytes, optionally a byte range of them; null when there is no such asset. */
    async open(assetId: string, range?: { start: number; end: number }) {
      if (!(await meta(assetId))) return null;
      return blobs.get(bodyKey(assetId), range);
    },
    bodyKey,
  };
}
