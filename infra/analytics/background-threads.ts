import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

const TASKS = '/proc/self/task';
const RESCAN_MS = 5_000;

const threadName = (tid: string): string | null => {
  try {
    return readFileSync(`${TASKS}/${tid}/comm`, 'utf8').trim();
  } catch {
    return null; // the thread ended meanwhile
  }
};

/**
 * Runs every thread of this process that Node did not start at the given nice value, now and
 * every few seconds (pools start threads as they grow, and may reset a thread's priority). Node's
 * own threads (the event loop, V8's workers, libuv's pool) carry the main thread's name or
 * `libuv-worker`; every other thread belongs to a native library, here chDB's engine. Linux only:
 * elsewhere there is no /proc/self/task and this does nothing. Once per process.
 */
export const lowerForeignThreads = (() => {
  let started = false;
  return (nice: number): void => {
    if (started) return;
    started = true;
    const scan = () => {
      let tids: string[];
      try {
        tids = readdirSync(TASKS);
      } catch {
        return;
      }
      const own = threadName(String(process.pid));
      for (const tid of tids) {
        if (Number(tid) === process.pid) continue;
        const name = threadName(tid);
        if (name === null || name === own || name === 'libuv-worker') continue;
        try {
          setPriority(Number(tid), nice);
        } catch {
          // gone, or not ours to change: nothing to do
        }
      }
    };
    scan();
    setInterval(scan, RESCAN_MS).unref();
  };
})();
