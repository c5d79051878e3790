import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFsBlobStore } from '../infra/blobs/fs.js';
import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import { blobStoreContract } from './contracts/blobs.js';

blobStoreContract('local files', async () => createFsBlobStore(await mkdtemp(path.join(os.tmpdir(), 'weir-blobs-'))));

it('leaves no temporary file behind when a stream fails half-way', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'weir-blobs-'));
  const store = createFsBlobStore(root);
  const body = Readable.from(
    (async function* () {
      yield Buffer.from('partial');
      throw new Error('gone');
    })(),
  );
  await expect(store.put('sources/s1/media', body)).rejects.toThrow('gone');
  expect(await readdir(path.join(root, 'sources', 's1'))).toEqual([]);
});
