import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { beforeAll, describe, expect, it } from 'vitest';
import { event, sampleConfigBody } from './fixtures/counters-config.js';

const root = path.resolve(import.meta.dirname, '..');

/**
 * `npm start` is `node <V8 heap options> dist/main.js`. The sources run through tsx here (no build
 * needed; the options tune the heap, not what it does); the last test runs the build itself.
 */
function start(env: Record<string, string>, args: string[] = [], entry: string[] = ['--import', 'tsx', 'main.ts']): { child: ChildProcess; output: () => string } {
  let out = '';
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  return { child, output: () => out };
}

async function waitForHealth(url: string, child: ChildProcess): Promise<Response> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) return res;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('npm start', () => {
  it('answers /health on embedded defaults and stops cleanly on SIGTERM', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weir-start-'));
    const port = await freePort();
    const { child, output } = start({ PORT: String(port), DATA_DIR: dataDir });
    const res = await waitForHealth(`http://127.0.0.1:${port}`, child);
    const body = (await res.json()) as { status: string; timestamp: string };
    expect(body.status).toBe('ok');
    expect(Date.parse(body.timestamp)).not.toBeNaN();
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(output()).toContain('weir stopped');
  });

  it('keeps its data across a restart', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weir-restart-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { PORT: String(port), DATA_DIR: dataDir, API_KEYS: 'org_a:key_a' };
    const headers = { 'content-type': 'application/json', 'x-org-id': 'org_a', 'x-api-key': 'key_a' };
    const live = async () => {
      const res = await fetch(`${url}/v1/entities/org_a/user_1/realtime`, { headers });
      return ((await res.json()) as { data: { counters: Record<string, unknown> } }).data.counters;
    };

    const first = start(env);
    await waitForHealth(url, first.child);
    const put = await fetch(`${url}/v1/counters/org_a`, { method: 'PUT', headers, body: JSON.stringify(sampleConfigBody()) });
    expect(put.status).toBe(200);
    const posted = await fetch(`${url}/v1/events/org_a/batch`, { method: 'POST', headers, body: JSON.stringify({ events: [event(), event()] }) });
    expect(posted.status).toBe(202);
    while ((await live()).logins_1h !== 2) await new Promise((r) => setTimeout(r, 100));
    first.child.kill('SIGTERM');
    expect((await once(first.child, 'exit'))[0]).toBe(0);

    const second = start(env);
    await waitForHealth(url, second.child);
    const config = (await (await fetch(`${url}/v1/counters/org_a`, { headers })).json()) as { data: { version: number } };
    expect(config.data.version).toBe(1);
    expect((await live()).logins_1h).toBe(2);
    second.child.kill('SIGTERM');
    expect((await once(second.child, 'exit'))[0]).toBe(0);
  });

  it('refuses a bad configuration with a message naming the variable', async () => {
    const { child, output } = start({ PORT: 'eighty', KAFKA_BROKERS: 'nohost', DATA_DIR: os.tmpdir() });
    const [code] = await once(child, 'exit');
    expect(code).toBe(78);
    expect(output()).toMatch(/PORT:/);
    expect(output()).toMatch(/KAFKA_BROKERS:.*host:port/);
    expect(output()).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });

  it('refuses a key listed for two organizations, without printing the key', async () => {
    const { child, output } = start({ API_KEYS: 'org_a:one-key-for-two,org_b:one-key-for-two', DATA_DIR: os.tmpdir() });
    const [code] = await once(child, 'exit');
    expect(code).toBe(78);
    expect(output()).toMatch(/API_KEYS: entries 1 and 2 list the same key for two organizations/);
    expect(output()).not.toContain('one-key-for-two');
  });

  it('refuses an unknown role', async () => {
    const { child, output } = start({ DATA_DIR: os.tmpdir() }, ['--role=everything']);
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(output()).toMatch(/unknown --role=everything/);
  });
});

describe('npm start on the build', () => {
  const main = path.join(root, 'dist', 'main.js');
  // `npm ci` builds through `prepare`; a checkout that skipped it builds once here.
  beforeAll(() => {
    if (!existsSync(main)) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  }, 600_000);

  it('runs dist/main.js with node alone, answers /health and stops cleanly on SIGTERM', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weir-dist-'));
    const port = await freePort();
    const { child, output } = start({ PORT: String(port), DATA_DIR: dataDir }, [], ['--max-semi-space-size=64', '--heap-growing-percent=100', main]);
    const res = await waitForHealth(`http://127.0.0.1:${port}`, child);
    expect(((await res.json()) as { status: string }).status).toBe('ok');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(output()).toContain('weir stopped');
  });
});
