import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { sendFramed } from '../infra/windows/redis/framed-replies.js';
import { RespWriter } from '../infra/windows/redis/resp-frame.js';

/**
 * A frame's replies taken by one Command (redis/framed-replies.ts): in order, or the first error;
 * ioredis's command timeout, offline queue and lost connections still apply to it.
 */

const url = process.env.WEIR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test:${randomUUID()}:`;
const redis = new Redis(url, { commandTimeout: 2000 });
const servers: Server[] = [];

afterAll(async () => {
  const leftovers = await redis.keys(`${prefix}*`);
  if (leftovers.length > 0) await redis.unlink(...leftovers);
  await redis.quit();
});
afterEach(() => {
  vi.restoreAllMocks();
  for (const s of servers.splice(0)) s.close();
});

/** A frame of commands, each a list of its bulk strings. */
function frameOf(commands: string[][]): Buffer {
  const w = new RespWriter(64);
  for (const c of commands) {
    w.array(c.length);
    for (const arg of c) w.string(arg);
  }
  return Buffer.from(w.view());
}

/** Commands in bytes a fake server received: the `*<n>` headers at a line's start (the tests' arguments hold no such line). */
const commandsIn = (bytes: string): number => bytes.split('\r\n').filter((line) => /^\*\d+$/.test(line)).length;

/** A fake Redis on a free port: `answer(socket, commands, connection)` for each chunk it reads. */
async function fakeServer(answer: (socket: Socket, commands: number, connection: number) => void): Promise<number> {
  let connections = 0;
  const server = createServer((socket) => {
    const connection = ++connections;
    socket.on('data', (data) => answer(socket, commandsIn(data.toString()), connection));
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

const fakeClient = (port: number, commandTimeout = 2000): Redis =>
  new Redis({ host: '127.0.0.1', port, enableReadyCheck: false, disableClientInfo: true, commandTimeout, retryStrategy: () => 10, lazyConnect: true });

describe('a frame of commands answered by one Command', () => {
  it('answers each command reply in order: bulk strings decoded, integers and nils as they are', async () => {
    const key = `${prefix}order`;
    const answers = await sendFramed(
      redis,
      frameOf([
        ['SET', key, 'v'],
        ['GET', key],
        ['HSETNX', `${key}:h`, 'f', 'é'],
        ['HGET', `${key}:h`, 'f'],
        ['HGET', `${key}:h`, 'missing'],
        ['HSETNX', `${key}:h`, 'f', 'other'],
      ]),
      6,
    );
    expect(answers).toEqual(['OK', 'v', 1, 'é', null, 0]);
  });

  it('arms one command timer for a whole frame, not one a reply', async () => {
    const commands = Array.from({ length: 100 }, (_, i) => ['HSETNX', `${prefix}timers`, String(i), 'x']);
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const answers = await sendFramed(redis, frameOf(commands), commands.length);
    expect(answers).toEqual(commands.map(() => 1));
    expect(timers.mock.calls.length).toBeLessThanOrEqual(1);
  });

  it('rejects with the first error reply, and the connection answers the next command with its own reply', async () => {
    const key = `${prefix}error`;
    await redis.set(key, 'a string');
    const frame = frameOf([
      ['GET', key],
      ['HGET', key, 'f'],
      ['LPUSH', key, 'x'],
      ['GET', key],
    ]);
    await expect(sendFramed(redis, frame, 4)).rejects.toThrow(/^WRONGTYPE/);
    expect(await redis.get(key)).toBe('a string');
    expect(await sendFramed(redis, frameOf([['GET', key]]), 1)).toEqual(['a string']);
  });

  it('fails with the command timeout when the server never answers', async () => {
    const port = await fakeServer(() => {});
    const client = fakeClient(port, 200);
    try {
      await expect(sendFramed(client, frameOf([['GET', 'a'], ['GET', 'b']]), 2)).rejects.toThrow('Command timed out');
    } finally {
      client.disconnect();
    }
  });

  it('waits in the offline queue while connecting, then sends the frame once', async () => {
    const seen: number[] = [];
    const port = await fakeServer((socket, commands) => {
      seen.push(commands);
      socket.write(':7\r\n'.repeat(commands));
    });
    const client = fakeClient(port);
    try {
      expect(client.status).toBe('wait');
      expect(await sendFramed(client, frameOf([['GET', 'a'], ['GET', 'b'], ['GET', 'c']]), 3)).toEqual([7, 7, 7]);
      expect(seen).toEqual([3]);
    } finally {
      client.disconnect();
    }
  });

  it('sends a frame again whole when the connection is lost before any reply', async () => {
    const port = await fakeServer((socket, commands, connection) => {
      if (connection === 1) socket.destroy();
      else socket.write(':1\r\n'.repeat(commands));
    });
    const client = fakeClient(port);
    try {
      await client.connect();
      expect(await sendFramed(client, frameOf([['GET', 'a'], ['GET', 'b']]), 2)).toEqual([1, 1]);
    } finally {
      client.disconnect();
    }
  });

  it('fails a frame whose replies were cut short by a lost connection, and keeps later replies matched to their commands', async () => {
    const port = await fakeServer((socket, commands, connection) => {
      if (connection === 1) socket.end(':1\r\n');
      else socket.write(':2\r\n'.repeat(commands));
    });
    const client = fakeClient(port);
    try {
      await client.connect();
      await expect(sendFramed(client, frameOf([['GET', 'a'], ['GET', 'b'], ['GET', 'c']]), 3)).rejects.toThrow('Command aborted due to connection close');
      expect(await sendFramed(client, frameOf([['GET', 'd']]), 1)).toEqual([2]);
    } finally {
      client.disconnect();
    }
  });

  it('refuses a frame of no commands', () => {
    expect(() => sendFramed(redis, Buffer.alloc(0), 0)).toThrow(/at least one command/);
  });
});
