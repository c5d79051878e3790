import { readFile, unlink } from 'node:fs/promises';
import { createFileOnce } from './atomic-file.js';

/**
 * One process at a time appends to a log directory; others may read and consume. The lock file
 * holds the owner's pid and is taken over once that process is gone (after a crash).
 */
export interface WriterLock {
  release(): Promise<void>;
}

export type LockResult = { held: true; lock: WriterLock } | { held: false; ownerPid: number };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(file: string): Promise<number | undefined> {
  try {
    return Number.parseInt(await readFile(file, 'utf8'), 10);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function tryLock(file: string): Promise<LockResult> {
  for (;;) {
    // Created whole (pid inside) or not at all, so a reader never sees an empty lock.
    if (await createFileOnce(file, String(process.pid))) {
      return {
        held: true,
        lock: {
          release: async () => {
            if ((await readOwner(file)) === process.pid) await unlink(file);
          },
        },
      };
    }
    const owner = await readOwner(file);
    if (owner === undefined) continue; // released meanwhile
    if (owner === process.pid || isAlive(owner)) return { held: false, ownerPid: owner };
    // Stale. Two processes taking over the same stale lock at once could both win; the embedded
    // log serves one process at a time, so only a restart races here, and it races with nobody.
    await unlink(file).catch(() => undefined);
  }
}
