import { createRequire } from 'node:module';
import { constants } from 'node:fs';
import { appendFile, mkdtemp, readdir, readFile, readlink, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedBus, type EmbeddedBusOptions } from '../infra/bus/embedded/index.js';
import { murmur2, partitionForKey } from '../infra/bus/murmur2.js';
import { checkFrame, decodeFrame, encodeFrame, stampOffset } from '../infra/bus/embedded/record.js';
import type { Bus } from '../infra/bus/types.js';
import { bodyOf, busContract, consume, jsonMessage } from './contracts/bus.js';
import { kill, spawnFixture } from './fixtures/bus-crash-harness.js';

const log = pino({ level: 'silent' });
const tempDir = (): Promise<string> => mkdtemp(path.join(os.tmpdir(), 'weir-bus-'));
const fastRetries = { pollIntervalMs: 100, retryBackoffMs: 50 };

busContract('embedded log', async () => createEmbeddedBus({ dir: await tempDir(), log, ...fastRetries }));
busContract('embedded log, tiny segments', async () => createEmbeddedBus({ dir: await tempDir(), log, ...fastRetries, segmentBytes: 256, maxBatchBytes: 300 }));

describe('murmur2 partitioner', () => {
  const kafkajsMurmur2 = createRequire(import.meta.url)('kafkajs/src/producer/partitioners/default/murmur2.js') as (key: Buffer) => number;

  it("matches Kafka's reference values", () => {
    // From Kafka's UtilsTest.testMurmur2.
    const cases: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, hash] of cases) expect(murmur2(Buffer.from(key))).toBe(hash);
  });

  it('agrees with kafkajs on any key, so a key lands on the same partition number on both buses', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (key) => murmur2(Buffer.from(key)) === kafkajsMurmur2(Buffer.from(key))));
  });

  it('maps keys into range', () => {
    fc.assert(fc.property(fc.string(), fc.integer({ min: 1, max: 64 }), (key, n) => {
      const p = partitionForKey(key, n);
      return Number.isInteger(p) && p >= 0 && p < n;
    }));
  });
});

describe('record framing', () => {
  const message = { key: 'k', value: Buffer.from('value'), headers: { a: 'b' } };

  it('round-trips any message', () => {
    fc.assert(fc.property(
      fc.option(fc.string(), { nil: null }),
      fc.uint8Array({ maxLength: 200 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 4 }),
      fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      (key, value, headers, offset) => {
        const frame = encodeFrame({ key, value: Buffer.from(value), headers }, 0, 1700000000000);
        stampOffset(frame, offset);
        const check = checkFrame(frame, 0);
        const decoded = decodeFrame(frame, 0);
        return check.status === 'ok' && check.offset === offset && check.end === frame.length
          && decoded.key === key && decoded.value.equals(Buffer.from(value)) && decoded.offset === offset
          && JSON.stringify(decoded.headers) === JSON.stringify(headers) && decoded.timestamp === 1700000000000;
      },
    ));
  });

  it('keeps a header named __proto__ as a header', () => {
    const headers = Object.fromEntries([['__proto__', 'x'], ['a', 'b']]) as Record<string, string>;
    expect(JSON.stringify(decodeFrame(encodeFrame({ key: null, value: Buffer.alloc(0), headers }, 0, 1), 0).headers)).toBe('{"__proto__":"x","a":"b"}');
  });

  it('tells a cut frame from a corrupt one', () => {
    const frame = encodeFrame(message, 7, 1);
    for (const cut of [1, 7, 8, frame.length - 1]) expect(checkFrame(frame.subarray(0, cut), 0).status).toBe('partial');
    const flipped = Buffer.from(frame);
    flipped[flipped.length - 2]! ^= 0xff;
    expect(checkFrame(flipped, 0)).toEqual({ status: 'corrupt' });
    const huge = Buffer.from(frame);
    huge.writeUInt32BE(0xffffffff, 0);
    expect(checkFrame(huge, 0)).toEqual({ status: 'corrupt' });
  });
});

describe('embedded bus on disk', () => {
  const buses: Bus[] = [];
  const openBus = async (opts: Partial<EmbeddedBusOptions> & { dir: string }): Promise<Bus> => {
    const bus = await createEmbeddedBus({ log, ...fastRetries, ...opts });
    buses.push(bus);
    return bus;
  };
  afterEach(async () => {
    await Promise.allSettled(buses.splice(0).map((b) => b.close()));
  });

  const consumeAll = async (bus: Bus, topic: string, groupId: string, count: number) => {
    const c = await consume(bus, { groupId, topics: [topic] });
    await c.waitFor(`${count} messages`, (d) => d.length >= count);
    await c.stop();
    return c.delivered;
  };

  async function lastSegment(dir: string, topic: string, partition = 0): Promise<string> {
    const partitionDir = path.join(dir, 'topics', topic, String(partition));
    const names = (await readdir(partitionDir)).filter((n) => n.endsWith('.seg')).sort();
    return path.join(partitionDir, names.at(-1)!);
  }

  it('keeps messages and committed offsets across a restart', async () => {
    const dir = await tempDir();
    const first = await openBus({ dir, segmentBytes: 512 });
    await first.ensureTopics([{ topic: 'orders', partitions: 3 }]);
    await first.send('orders', Array.from({ length: 30 }, (_, seq) => jsonMessage(`k${seq % 7}`, { seq })));
    await consumeAll(first, 'orders', 'g', 30);
    await first.send('orders', Array.from({ length: 12 }, (_, i) => jsonMessage(`k${i % 7}`, { seq: 30 + i })));
    await first.close();

    const second = await openBus({ dir, segmentBytes: 512 });
    expect((await second.lag('g', 'orders')).reduce((s, p) => s + p.lag, 0)).toBe(12);
    const rest = await consumeAll(second, 'orders', 'g', 12);
    expect(rest.map((m) => bodyOf(m).seq).sort((a, b) => (a as number) - (b as number))).toEqual(Array.from({ length: 12 }, (_, i) => 30 + i));
    const everything = await consumeAll(second, 'orders', 'fresh', 42);
    expect(everything).toHaveLength(42);
    expect((await second.lag('fresh', 'orders')).every((p) => p.lag === 0)).toBe(true);
  });

  it('cuts a torn tail record at open and appends after the last whole one', async () => {
    const dir = await tempDir();
    const first = await openBus({ dir });
    await first.ensureTopics([{ topic: 't', partitions: 1 }]);
    await first.send('t', Array.from({ length: 5 }, (_, seq) => jsonMessage('k', { seq })));
    await first.close();
    // Half of a frame, as a crash in the middle of a write leaves it.
    const half = encodeFrame(jsonMessage('k', { seq: 99 }), 5, Date.now()).subarray(0, 20);
    await appendFile(await lastSegment(dir, 't'), half);

    const second = await openBus({ dir });
    await second.send('t', [jsonMessage('k', { seq: 5 })]);
    const all = await consumeAll(second, 't', 'g', 6);
    expect(all.map((m) => [m.offset, bodyOf(m).seq])).toEqual([0, 1, 2, 3, 4, 5].map((i) => [String(i), i]));
  });

  it('deletes closed segments past the retention; groups behind them resume at the oldest kept record', async () => {
    const dir = await tempDir();
    const first = await openBus({ dir, segmentBytes: 200, retentionMs: null });
    await first.ensureTopics([{ topic: 't', partitions: 1 }]);
    await first.send('t', Array.from({ length: 3 }, (_, seq) => jsonMessage('k', { seq })));
    await consumeAll(first, 't', 'early', 3);
    for (let seq = 3; seq < 20; seq++) await first.send('t', [jsonMessage('k', { seq })]);
    await first.close();
    const partitionDir = path.join(dir, 'topics', 't', '0');
    const segments = (await readdir(partitionDir)).filter((n) => n.endsWith('.seg'));
    expect(segments.length).toBeGreaterThan(2);
    const longAgo = new Date(Date.now() - 48 * 3600 * 1000);
    await Promise.all(segments.map((n) => utimes(path.join(partitionDir, n), longAgo, longAgo)));

    const second = await openBus({ dir, segmentBytes: 200, retentionMs: 24 * 3600 * 1000 });
    const kept = Number(segments.sort().at(-1)!.slice(0, 20));
    expect(kept).toBeGreaterThan(3);
    // Retention runs when the topic is opened, here by the lag query.
    expect(await second.lag('early', 't')).toEqual([{ partition: 0, lag: 20 - kept }]);
    expect(await readdir(partitionDir)).toEqual([segments.at(-1)]);
    const resumed = await consumeAll(second, 't', 'early', 20 - kept);
    expect(resumed.map((m) => Number(m.offset))).toEqual(Array.from({ length: 20 - kept }, (_, i) => kept + i));
    const fresh = await consumeAll(second, 't', 'fresh', 20 - kept);
    expect(fresh.map((m) => bodyOf(m).seq)).toEqual(Array.from({ length: 20 - kept }, (_, i) => kept + i));
  });

  it('keeps every acknowledged message when the writing process is killed mid-send, and takes over its lock', async () => {
    const dir = await tempDir();
    const producer = spawnFixture('./bus-embedded-producer.ts', { WEIR_CRASH_BUS_DIR: dir });
    try {
      await producer.line('2,000 acknowledged messages', (l) => l.startsWith('ACK ') && Number(l.slice(4)) >= 1999);
    } finally {
      await kill(producer, 'SIGKILL');
    }
    const acknowledged = Number(producer.lines.filter((l) => l.startsWith('ACK ')).at(-1)!.slice(4)) + 1;

    const bus = await openBus({ dir });
    await bus.send('p', [jsonMessage('k0', { seq: -1 })]);
    const total = (await bus.lag('g', 'p')).reduce((s, p) => s + p.lag, 0);
    expect(total).toBeGreaterThan(acknowledged);
    const all = await consumeAll(bus, 'p', 'g', total);
    const seqs = new Set(all.map((m) => bodyOf(m).seq as number));
    expect(seqs.size).toBe(all.length);
    const lost = Array.from({ length: acknowledged }, (_, seq) => seq).filter((seq) => !seqs.has(seq));
    expect(lost).toEqual([]);
    for (const p of [0, 1, 2]) {
      const offsets = all.filter((m) => m.partition === p).map((m) => Number(m.offset));
      expect(offsets).toEqual(offsets.map((_, i) => i));
    }
  });

  it('creates a missing topic with one partition on send', async () => {
    const bus = await openBus({ dir: await tempDir() });
    await bus.send('auto', [jsonMessage('a', { seq: 0 }), jsonMessage('b', { seq: 1 })]);
    expect(await bus.lag('g', 'auto')).toEqual([{ partition: 0, lag: 2 }]);
    expect(await bus.lag('g', 'never-created')).toEqual([]);
  });

  it('refuses a second subscription of a live group in the same process', async () => {
    const bus = await openBus({ dir: await tempDir() });
    const c = await consume(bus, { groupId: 'g', topics: ['t'] });
    await expect(bus.subscribe({ groupId: 'g', topics: ['t'], eachBatch: async () => undefined })).rejects.toThrow(/already has a subscription/);
    await c.stop();
    const again = await consume(bus, { groupId: 'g', topics: ['t'] });
    await again.stop();
  });

  it('refuses invalid topic names and partition counts', async () => {
    const bus = await openBus({ dir: await tempDir() });
    await expect(bus.send('../escape', [jsonMessage('k', {})])).rejects.toThrow(/invalid topic name/);
    await expect(bus.ensureTopics([{ topic: 'ok', partitions: 0 }])).rejects.toThrow(/positive integer/);
  });

  it('appends through a descriptor opened with O_DSYNC, so an acknowledged write is on disk without a separate fsync', async () => {
    /** The flags of every descriptor of this process open on `file`, from /proc/self/fdinfo. */
    const flagsOn = async (file: string): Promise<number[]> => {
      const flags: number[] = [];
      for (const fd of await readdir('/proc/self/fd')) {
        const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
        if (target !== file) continue;
        const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
        const octal = /^flags:\s+([0-7]+)/m.exec(info)?.[1];
        if (octal) flags.push(parseInt(octal, 8));
      }
      return flags;
    };
    const writable = (f: number) => (f & 3) !== constants.O_RDONLY;
    const dir = await tempDir();
    const first = await openBus({ dir, segmentBytes: 256 });
    await first.send('t', Array.from({ length: 8 }, (_, seq) => jsonMessage('k', { seq }))); // rolls new segments
    const rolled = (await flagsOn(await lastSegment(dir, 't'))).filter(writable);
    expect(rolled).toHaveLength(1);
    expect(rolled[0]! & constants.O_DSYNC).toBe(constants.O_DSYNC);
    await first.close();

    const second = await openBus({ dir, segmentBytes: 1 << 20 }); // reopens the last segment to append to it
    await second.send('t', [jsonMessage('k', { seq: 8 })]);
    const reopened = (await flagsOn(await lastSegment(dir, 't'))).filter(writable);
    expect(reopened).toHaveLength(1);
    expect(reopened[0]! & constants.O_DSYNC).toBe(constants.O_DSYNC);
    expect(await consumeAll(second, 't', 'g', 9)).toHaveLength(9);
  });

  it('shares fsyncs between concurrent sends and keeps offsets dense', async () => {
    const bus = await openBus({ dir: await tempDir() });
    await bus.ensureTopics([{ topic: 't', partitions: 1 }]);
    await Promise.all(Array.from({ length: 300 }, (_, seq) => bus.send('t', [jsonMessage('k', { seq })])));
    const all = await consumeAll(bus, 't', 'g', 300);
    expect(all.map((m) => m.offset)).toEqual(Array.from({ length: 300 }, (_, i) => String(i)));
    expect(all.map((m) => bodyOf(m).seq)).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it('lets a second opener of the directory consume what the writer appends, but not send', async () => {
    const dir = await tempDir();
    const writer = await openBus({ dir, segmentBytes: 400 });
    await writer.ensureTopics([{ topic: 't', partitions: 2 }]);
    await writer.send('t', Array.from({ length: 10 }, (_, seq) => jsonMessage(`k${seq}`, { seq })));
    const reader = await openBus({ dir });
    await expect(reader.send('t', [jsonMessage('k', {})])).rejects.toThrow(/written by another process/);

    const c = await consume(reader, { groupId: 'g', topics: ['t'] });
    await c.waitFor('the first 10', (d) => d.length >= 10);
    await writer.send('t', Array.from({ length: 15 }, (_, i) => jsonMessage(`k${i}`, { seq: 10 + i })));
    await c.waitFor('25 messages, seen by polling', (d) => d.length >= 25);
    await c.stop();
    expect(new Set(c.delivered.map((m) => bodyOf(m).seq)).size).toBe(25);
    expect((await writer.lag('g', 't')).every((p) => p.lag === 0)).toBe(true);
  });
});
