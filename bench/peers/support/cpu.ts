/** CPU time of the processes a pair runs, to put CPU per event or per request beside its figure. */
import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';

/** User + system CPU time (µs) a process has used, from /proc/<pid>/stat (clock ticks of 10 ms). */
export async function processCpuMicros(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** CPU time (µs) a Redis server has used, by its own account (INFO cpu). */
export async function redisCpuMicros(url: string): Promise<number> {
  const r = new Redis(url, { lazyConnect: true });
  try {
    await r.connect();
    const info = await r.info('cpu');
    const seconds = (name: string): number => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
    return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
  } finally {
    r.disconnect();
  }
}
