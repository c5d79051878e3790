import { mkdtemp } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kill, spawnFixture } from './fixtures/bus-crash-harness.js';

/**
 * Decisions land in ClickHouse exactly once (as read with FINAL) although the consumer is killed
 * between writing a batch of decisions and committing it: the batch is delivered again and its
 * rows, keyed by (org_id, transaction_id), collapse into the ones already written.
 */
describe('decisions after a consumer crash', () => {
  it('are in ClickHouse once per transaction', { timeout: 180_000 }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weir-rules-crash-'));
    const env = { DATA_DIR: dataDir, CLICKHOUSE_DATABASE: 'crash' };
    const run = async (phase: string, until: string) => {
      const child = spawnFixture('rules-crash-child.ts', { ...env, WEIR_RULES_PHASE: phase });
      const exited = once(child.process, 'exit') as Promise<[number | null, string | null]>;
      try {
        const line = await child.line(until, (l) => l.startsWith(until));
        const [code, signal] = await exited;
        return { line, code, signal, stderr: child.stderr() };
      } finally {
        await kill(child, 'SIGKILL'); // a child left behind by a failed run would hold the data directory
      }
    };

    const seeded = await run('seed', 'SEEDED');
    expect(seeded.code, seeded.stderr).toBe(0);

    const crashed = await run('crash', 'INSERTED');
    expect(crashed.signal).toBe('SIGKILL');
    expect(Number(crashed.line.split(' ')[1])).toBeGreaterThan(0);
    expect(Number(crashed.line.split(' ')[1])).toBeLessThan(20);

    const resumed = await run('resume', 'COUNTS');
    expect(resumed.code, resumed.stderr).toBe(0);
    const counts = JSON.parse(resumed.line.slice('COUNTS '.length)) as { final: number; distinct: number; written: number };
    expect(counts.final).toBe(20);
    expect(counts.distinct).toBe(20);
    // The batch written before the crash was delivered and written again (redelivery happened),
    // yet every transaction has one decision.
    expect(counts.written).toBe(20);
  });
});
