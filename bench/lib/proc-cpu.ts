import { readdir, readFile } from 'node:fs/promises';

/** User plus system CPU time so far of a process, or of one of its threads, ms (Linux /proc; ticks of 10 ms). */
export async function cpuMs(pid: number, thread?: number): Promise<number> {
  const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = (await readFile(file, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms of each thread of a process, summed by thread name (chDB's pools, lmdb's writer, V8's GC and compiler threads). */
export async function cpuByThread(pid: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [])) {
    try {
      const name = (await readFile(`/proc/${pid}/task/${tid}/comm`, 'utf8')).trim();
      const label = Number(tid) === pid ? 'main (event loop)' : name.replace(/\d+$/, '');
      out.set(label, (out.get(label) ?? 0) + (await cpuMs(pid, Number(tid))));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}
