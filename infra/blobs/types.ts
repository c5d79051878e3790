import type { Readable } from 'node:stream';

/** Object storage for assets and rendered videos; an S3 bucket satisfies the same port. */
export interface BlobStore {
  put(key: string, body: Buffer | Readable, contentType?: string): Promise<{ key: string; sizeBytes: number }>;
  /** null when no object has this key. */
  get(key: string): Promise<{ body: Readable; sizeBytes: number; contentType?: string } | null>;
  delete(key: string): Promise<boolean>;
  exists(key: string): Promise<boolean>;
}
