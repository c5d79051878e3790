import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';

/** Whether Debian's redis-server is on the PATH (CI has it: .ci/run's Redis). */
export function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true' || process.env.CI === '1') throw new Error('redis-server is not on the PATH; CI runs the Redis outage tests');
    return false;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * A redis-server of the test's own (never the shared one), without persistence, on a free port,
 * so a test can kill it. Resolves once it answers PING. `extraArgs` come last and so override,
 * e.g. `['--appendonly', 'yes', '--appendfsync', 'everysec']` for a bench's durable Redis.
 */
export async function startRedisServer(extraArgs: string[] = []): Promise<{ url: string; kill(): Promise<void>; pause(): void }> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-redis-'));
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extraArgs], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  for (let i = 0; ; i++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (err) {
      if (i >= 100 || child.exitCode !== null) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  probe.disconnect();
  return {
    url,
    /** SIGSTOP: the server keeps its connections and answers nothing, as a hung or partitioned one. */
    pause: () => void child.kill('SIGSTOP'),
    async kill() {
      child.kill('SIGCONT');
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}
