import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryWindowStore } from '../infra/windows/memory/index.js';
import type { ApplyRequest, EntityRef } from '../infra/windows/types.js';
import { windowStoreContract } from './contracts/windows.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});
const tempSnapshot = async (): Promise<string> => {
  const dir = await mkdtemp(path.join(tmpdir(), 'weir-windows-'));
  dirs.push(dir);
  return path.join(dir, 'windows', 'snapshot.json');
};

windowStoreContract('memory', (opts) => createMemoryWindowStore({ ...opts }));
windowStoreContract('memory with journal', async (opts) => createMemoryWindowStore({ snapshotPath: await tempSnapshot(), ...opts }));

const entity: EntityRef = { scope: 'acme', id: 'u1' };
const event: Omit<ApplyRequest, 'once'> = {
  entity,
  updates: [
    { kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 },
    { kind: 'sum', series: 'amt', bucket: 1, delta: 0.1, floor: 0 },
  ],
};
const ONCE_TTL_MS = 3_600_000;
const counted = (i: number): ApplyRequest => ({ ...event, once: { id: `e${i}`, ttlMs: ONCE_TTL_MS } });
const readAll = (store: Awaited<ReturnType<typeof createMemoryWindowStore>>) =>
  store.read(entity, [{ kind: 'sum', series: 'n', floor: 0 }, { kind: 'sum', series: 'amt', floor: 0 }, { kind: 'max', series: 'seen' }]);

describe('memory window store: durability', () => {
  it('keeps series, once ids, claims and queues across a restart', async () => {
    const snapshotPath = await tempSnapshot();
    const first = await createMemoryWindowStore({ snapshotPath });
    await first.apply([counted(1), counted(2), { entity, updates: [{ kind: 'max', series: 'seen', value: 99 }] }]);
    await first.claim('acme', 'intake', ['a'], 3_600_000);
    await first.schedule('acme', 'flush', [{ id: 'u1', dueAt: 10 }]);
    await first.close();

    const second = await createMemoryWindowStore({ snapshotPath });
    try {
      expect(await readAll(second)).toEqual([2, 0.2, 99]);
      expect(await second.apply([counted(2), counted(3)])).toEqual([false, true]);
      expect(await second.claim('acme', 'intake', ['a', 'b'], 3_600_000)).toEqual([false, true]);
      expect(await second.takeDue('acme', 'flush', 10, 10)).toEqual(['u1']);
    } finally {
      await second.close();
    }
  });

  it('refuses a second store on the same files while the first is open', async () => {
    const snapshotPath = await tempSnapshot();
    const first = await createMemoryWindowStore({ snapshotPath });
    try {
      await expect(createMemoryWindowStore({ snapshotPath })).rejects.toThrow(/in use by process/);
    } finally {
      await first.close();
    }
  });

  it('counts every event exactly once when killed with SIGKILL mid-stream and redelivered', async () => {
    const snapshotPath = await tempSnapshot();
    const acked = await applyUntilKilled(snapshotPath, 300);
    // Torn tail of a write that never finished: replay must stop there, not fail.
    const journals = (await readdir(path.dirname(snapshotPath))).filter((f) => f.endsWith('.journal')).sort();
    await appendFile(path.join(path.dirname(snapshotPath), journals.at(-1)!), '{"at":1,"op":"apply","requ');

    const store = await createMemoryWindowStore({ snapshotPath });
    try {
      const [n] = await readAll(store);
      expect(n).toBeGreaterThanOrEqual(acked);
      // Redelivery of everything the child was given, and more: each event counts once in all.
      const total = acked + 500;
      const redelivered = await store.apply(Array.from({ length: total }, (_, i) => counted(i)));
      expect(redelivered.slice(0, acked).every((applied) => !applied)).toBe(true);
      const [count, amount] = await readAll(store);
      expect(count).toBe(total);
      expect(amount).toBe(Number((total * 0.1).toPrecision(15)));
    } finally {
      await store.close();
    }
  });
});

const storeModule = fileURLToPath(new URL('../infra/windows/memory/index.ts', import.meta.url));

/**
 * Runs a child process that applies counted(0), counted(1), ... in calls of 7, printing the
 * highest index after each call resolves, with snapshots every 20 ms, and kills it with SIGKILL
 * once `atLeast` events were acknowledged. Answers how many were acknowledged.
 */
async function applyUntilKilled(snapshotPath: string, atLeast: number): Promise<number> {
  const code = `
    const { createMemoryWindowStore } = await import(${JSON.stringify(storeModule)});
    const store = await createMemoryWindowStore({ snapshotPath: ${JSON.stringify(snapshotPath)}, snapshotIntervalMs: 20 });
    const counted = (i) => ({ ...${JSON.stringify(event)}, once: { id: 'e' + i, ttlMs: ${ONCE_TTL_MS} } });
    for (let i = 0; ; i += 7) {
      await store.apply(Array.from({ length: 7 }, (_, k) => counted(i + k)));
      process.stdout.write(String(i + 7) + '\\n');
    }
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let acked = 0;
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      if (lines.length > 0) acked = Number(lines.at(-1));
      if (acked >= atLeast && !child.killed) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(acked) : reject(new Error(`child ended without SIGKILL (${signal})`))));
  });
}
