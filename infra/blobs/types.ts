import type { Readable } from 'node:stream';

/** Object storage for assets and rendered videos; an S3 bucket satisfies the same port. */
export interface BlobStore {
  put(key: string, body: Buffer | Readable, contentType?: string): Promise<{ key: string; sizeBytes: number }>;
  /**
   * null when no object has this key. With `range` (inclusive byte offsets, within the object),
   * `body` holds only those bytes; `sizeBytes` is always the whole object's size.
   */
  get(key: string, range?: { start: number; end: number }): Promise<{ body: Readable; sizeBytes: number; contentType?: string } | null>;
  delete(key: string): Promise<boolean>;
  exists(key: string): Promise<boolean>;
}
