import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedBus } from '../infra/bus/embedded/index.js';
import { bootId, currentHolder, startTimeOf, tryLock, type Holder } from '../infra/fs/writer-lock.js';
import { createLmdbWindowStore } from '../infra/windows/lmdb/index.js';
import { jsonMessage } from './contracts/bus.js';
import { kill, spawnFixture, type Child } from './fixtures/bus-crash-harness.js';

const log = pino({ level: 'silent' });
const lockFile = async (): Promise<string> => path.join(await mkdtemp(path.join(os.tmpdir(), 'weir-lock-')), 'writer.lock');
/** The lock a process killed with -9 leaves behind: its pid, a start time that is not this process's, this boot. */
const deadHolder = (pid: number): Holder => ({ pid, start: String(Number(startTimeOf('self')) - 1), boot: bootId() });

const children: Child[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => kill(c, 'SIGKILL')));
});

describe('writer lock', () => {
  it('records pid, start time and boot id of its holder', async () => {
    const file = await lockFile();
    const r = await tryLock(file);
    expect(r.held).toBe(true);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(currentHolder());
    expect(currentHolder()).toMatchObject({ pid: process.pid, start: expect.stringMatching(/^\d+$/), boot: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('is refused to a second opener in the same process while held, and free again once released', async () => {
    const file = await lockFile();
    const first = await tryLock(file);
    expect(await tryLock(file)).toEqual({ held: false, ownerPid: process.pid });
    if (first.held) await first.lock.release();
    expect((await tryLock(file)).held).toBe(true);
  });

  it('is taken over after kill -9 when the new process has the same pid (a container restart)', async () => {
    const file = await lockFile();
    await writeFile(file, JSON.stringify(deadHolder(process.pid)));
    expect((await tryLock(file)).held).toBe(true);
    // The format before start times were recorded: our own pid there cannot be us.
    const legacy = await lockFile();
    await writeFile(legacy, String(process.pid));
    expect((await tryLock(legacy)).held).toBe(true);
  });

  it("is taken over when the dead holder's pid now belongs to another live process", async () => {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const file = await lockFile();
      await writeFile(file, JSON.stringify(deadHolder(sleeper.pid!)));
      expect((await tryLock(file)).held).toBe(true);
      // Same pid and start time, but recorded before a reboot.
      const rebooted = await lockFile();
      await writeFile(rebooted, JSON.stringify({ pid: sleeper.pid!, start: startTimeOf(sleeper.pid!), boot: '00000000-0000-0000-0000-000000000000' }));
      expect((await tryLock(rebooted)).held).toBe(true);
    } finally {
      sleeper.kill('SIGKILL');
      await once(sleeper, 'exit');
    }
  });

  it('is refused while another process holds it, and taken over once that one is killed with -9', async () => {
    const file = await lockFile();
    const holder = spawnFixture('./lock-holder.ts', { WEIR_LOCK_FILE: file });
    children.push(holder);
    await holder.line('the lock held', (l) => l === 'HELD');
    expect(await tryLock(file)).toEqual({ held: false, ownerPid: holder.process.pid });
    await kill(holder, 'SIGKILL');
    expect((await tryLock(file)).held).toBe(true);
  });

  it('lets the embedded log write and the window store open after a crash of a process with the same pid', async () => {
    const dir = path.dirname(await lockFile());
    await writeFile(path.join(dir, 'writer.lock'), JSON.stringify(deadHolder(process.pid)));
    await writeFile(path.join(dir, 'state.lmdb.lock'), JSON.stringify(deadHolder(process.pid)));
    const bus = await createEmbeddedBus({ dir, log });
    await bus.send('t', [jsonMessage('k', { seq: 1 })]);
    await bus.close();
    const windows = await createLmdbWindowStore({ dir: path.join(dir, 'state.lmdb') });
    await windows.close();
  });
});
