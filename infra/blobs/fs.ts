import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import type { BlobStore } from './types.js';

const KEY = /^[A-Za-z0-9][A-Za-z0-9._\-/]{0,511}$/;

/** Blobs as files under a root directory; writes go to a temp file and are renamed into place. */
export function createFsBlobStore(root: string): BlobStore {
  const fileOf = (key: string): string => {
    if (!KEY.test(key) || key.split('/').some((part) => part === '..' || part === '.' || part === '')) {
      throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
    }
    return path.join(root, key);
  };
  const metaOf = (file: string) => `${file}.meta.json`;

  return {
    async put(key, body, contentType) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${randomUUID()}.tmp`;
      // A body that fails half-way (a client gone, a limit passed) leaves no partial file behind.
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(tmp)).catch(async (err: unknown) => {
        await rm(tmp, { force: true });
        throw err;
      });
      await writeFile(metaOf(file), JSON.stringify({ contentType }));
      await rename(tmp, file);
      return { key, sizeBytes: (await stat(file)).size };
    },
    async get(key, range) {
      const file = fileOf(key);
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) return null;
      const meta = JSON.parse(await readFile(metaOf(file), 'utf8').catch(() => '{}')) as { contentType?: string };
      return { body: createReadStream(file, range), sizeBytes: info.size, contentType: meta.contentType };
    },
    async delete(key) {
      const file = fileOf(key);
      const existed = await stat(file).then(() => true, () => false);
      await rm(file, { force: true });
      await rm(metaOf(file), { force: true });
      return existed;
    },
    async exists(key) {
      return stat(fileOf(key)).then((s) => s.isFile(), () => false);
    },
  };
}
