import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFsBlobStore } from '../infra/blobs/fs.js';
import { blobStoreContract } from './contracts/blobs.js';

blobStoreContract('local files', async () => createFsBlobStore(await mkdtemp(path.join(os.tmpdir(), 'weir-blobs-'))));
