import { open, rename, link, unlink } from 'node:fs/promises';
import path from 'node:path';

let tmpSeq = 0;

async function writeDurably(file: string, data: string, mode?: number): Promise<void> {
  const fh = await open(file, 'w', mode);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Makes a rename or new name durable: the directory entry itself must reach the disk. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const tmpName = (file: string): string => `${file}.${process.pid}.${++tmpSeq}.tmp`;

/** Replaces `file` so that a reader (or a crash) sees the old content or the new, never a mix. */
export async function replaceFile(file: string, data: string): Promise<void> {
  const tmp = tmpName(file);
  await writeDurably(tmp, data);
  await rename(tmp, file);
  await syncDir(path.dirname(file));
}

/**
 * Creates `file` whole (with `mode`, e.g. 0o600 for a secret), or leaves it alone when it already
 * exists (another creator won). Returns whether this call created it.
 */
export async function createFileOnce(file: string, data: string, mode?: number): Promise<boolean> {
  const tmp = tmpName(file);
  await writeDurably(tmp, data, mode);
  try {
    await link(tmp, file);
    await syncDir(path.dirname(file));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(tmp);
  }
}
