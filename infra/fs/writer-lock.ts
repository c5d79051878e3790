import { readFileSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { createFileOnce } from './atomic-file.js';

/**
 * One process at a time appends to a log directory; others may read and consume. The lock file
 * names its holder by pid, the process's start time and the machine's boot id, so a holder that
 * died is told from a live one even when its pid comes back: a container restarted after kill -9
 * gets the same pid, and any pid may be recycled by an unrelated process.
 */
export interface WriterLock {
  release(): Promise<void>;
}

export type LockResult = { held: true; lock: WriterLock } | { held: false; ownerPid: number };

/** Who holds a lock. `start` and `boot` are missing where /proc is not (the pid alone decides there). */
export interface Holder {
  pid: number;
  /** Start time of the process in clock ticks since boot (/proc/<pid>/stat, field 22). */
  start?: string;
  boot?: string;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat; fields are counted after the command name, which may hold spaces. */
export function startTimeOf(pid: number | 'self'): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

export const bootId = (): string | undefined => readText('/proc/sys/kernel/random/boot_id');

export const currentHolder = (): Holder => ({ pid: process.pid, start: startTimeOf('self'), boot: bootId() });

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the process the lock file names still runs: same boot, same pid, same start time. */
export function holderAlive(holder: Holder): boolean {
  if (!isAlive(holder.pid)) return false;
  if (holder.start === undefined || holder.boot === undefined) {
    // A lock without a start time (written where /proc was missing, or by an older version).
    // Our own pid in it cannot be us: this process writes its start time whenever it can.
    return holder.pid !== process.pid || startTimeOf('self') === undefined;
  }
  const boot = bootId();
  if (boot !== undefined && boot !== holder.boot) return false;
  const start = startTimeOf(holder.pid);
  return start === undefined || start === holder.start;
}

function parseHolder(text: string): Holder | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed) };
  try {
    const h = JSON.parse(trimmed) as Partial<Holder>;
    if (typeof h.pid !== 'number' || !Number.isInteger(h.pid)) return undefined;
    return { pid: h.pid, start: typeof h.start === 'string' ? h.start : undefined, boot: typeof h.boot === 'string' ? h.boot : undefined };
  } catch {
    return undefined;
  }
}

type Read = { state: 'missing' } | { state: 'unreadable' } | { state: 'held'; holder: Holder };

async function readHolder(file: string): Promise<Read> {
  try {
    const holder = parseHolder(await readFile(file, 'utf8'));
    return holder ? { state: 'held', holder } : { state: 'unreadable' };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    throw err;
  }
}

const sameHolder = (a: Holder, b: Holder): boolean => a.pid === b.pid && a.start === b.start && a.boot === b.boot;

export async function tryLock(file: string): Promise<LockResult> {
  const me = currentHolder();
  for (;;) {
    // Created whole (holder inside) or not at all, so a reader never sees an empty lock.
    if (await createFileOnce(file, JSON.stringify(me))) {
      return {
        held: true,
        lock: {
          release: async () => {
            const now = await readHolder(file);
            if (now.state === 'held' && sameHolder(now.holder, me)) await unlink(file);
          },
        },
      };
    }
    const owner = await readHolder(file);
    if (owner.state === 'missing') continue; // released meanwhile
    // A file that names no process is what a crash of an older writer could leave: stale.
    if (owner.state === 'held' && holderAlive(owner.holder)) return { held: false, ownerPid: owner.holder.pid };
    // Stale. Two processes taking over the same stale lock at once could both win; the embedded
    // log serves one process at a time, so only a restart races here, and it races with nobody.
    await unlink(file).catch(() => undefined);
  }
}
