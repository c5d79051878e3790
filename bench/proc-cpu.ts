import { readFile } from 'node:fs/promises';

/** User plus system CPU time so far of a process, or of one of its threads, ms (Linux /proc; ticks of 10 ms). */
export async function cpuMs(pid: number, thread?: number): Promise<number> {
  const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = (await readFile(file, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
