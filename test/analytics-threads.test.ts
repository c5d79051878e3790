import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAnalytics } from '../infra/analytics/index.js';

/** Name and nice value of every thread of this process (Linux /proc). */
function threads(): { tid: number; name: string; nice: number }[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [{ tid: Number(tid), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), nice: Number(fields[16]) }];
    } catch {
      return [];
    }
  });
}

describe('chDB threads', () => {
  it('run at nice 19 once an analytics client is open, and the event loop stays at 0', async () => {
    const ch = await createAnalytics({ username: 'default', password: '', database: 'threads', chdbPath: await mkdtemp(path.join(os.tmpdir(), 'weir-ch-')) });
    await ch.command({ query: 'CREATE TABLE t (x UInt64) ENGINE = MergeTree ORDER BY x' });
    await ch.insert({ table: 't', values: Array.from({ length: 1000 }, (_, x) => ({ x })), format: 'JSONEachRow' });
    const all = threads();
    const main = all.find((t) => t.tid === process.pid)!;
    const engine = all.filter((t) => t.name !== main.name && t.name !== 'libuv-worker');
    expect(main.nice).toBe(0);
    // The engine's background pools exist as soon as the session is open.
    expect(engine.map((t) => t.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^BgSchPool/)]));
    expect(engine.filter((t) => t.name.startsWith('BgSchPool')).every((t) => t.nice === 19)).toBe(true);
    expect(all.filter((t) => t.name === main.name).every((t) => t.nice === 0)).toBe(true);
    await ch.close();
  });
});
