import { Redis } from 'ioredis';

/** A Redis server's INFO commandstats: per command, its calls and the µs spent in them (wall time, scripts' inner calls counted twice). */
export type CommandStats = Map<string, { calls: number; usec: number }>;

export async function commandStats(url: string): Promise<CommandStats> {
  const r = new Redis(url);
  try {
    const stats: CommandStats = new Map();
    for (const line of (await r.info('commandstats')).split('\n')) {
      const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
      if (m) stats.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
    }
    return stats;
  } finally {
    r.disconnect();
  }
}
