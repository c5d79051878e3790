import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createEmbeddedBus } from '../infra/bus/embedded/index.js';
import { PartitionLog, type LogDamage } from '../infra/bus/embedded/partition-log.js';
import { checkFrame, encodeFrame } from '../infra/bus/embedded/record.js';
import { jsonMessage } from './contracts/bus.js';

/**
 * Issue 10: the embedded log never drops an acknowledged record. A bad byte anywhere in a closed
 * segment, or anywhere in the last segment but a write cut short, stops the partition with an
 * error and is counted; only a torn tail is cut.
 */

const silent = pino({ level: 'silent' });
const RECORDS = 6;
/** Small enough that six one-record appends make two segments of three. */
const SEGMENT_BYTES = 150;

async function openLog(dir: string) {
  const damage: LogDamage[] = [];
  const log = await PartitionLog.open({ dir, writable: true, segmentBytes: SEGMENT_BYTES, retentionMs: undefined, log: silent, onAppend: () => undefined, onDamage: (k) => damage.push(k) });
  return { log, damage };
}

/** A partition with RECORDS acknowledged records `{seq}`, closed; answers its segment files, oldest first. */
async function writtenPartition(): Promise<{ dir: string; segments: string[] }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-log-damage-'));
  const { log } = await openLog(dir);
  for (let seq = 0; seq < RECORDS; seq++) await log.append([jsonMessage('k', { seq })]);
  await log.close();
  const segments = (await readdir(dir)).filter((n) => n.endsWith('.seg')).sort().map((n) => path.join(dir, n));
  return { dir, segments };
}

/** Reads from offset 0 on until the end or an error; answers the sequence numbers read and the error. */
async function readAll(log: PartitionLog): Promise<{ seqs: number[]; error?: Error }> {
  const seqs: number[] = [];
  try {
    for (let from = 0; from < log.endOffset; ) {
      const records = await log.read(from, 1 << 20);
      if (records.length === 0) break;
      for (const r of records) {
        expect(r.offset).toBe(from++);
        seqs.push((JSON.parse(r.value.toString()) as { seq: number }).seq);
      }
    }
    return { seqs };
  } catch (error) {
    return { seqs, error: error as Error };
  }
}

const frameStarts = (bytes: Buffer): number[] => {
  const starts: number[] = [];
  for (let at = 0; at < bytes.length; ) {
    const c = checkFrame(bytes, at);
    if (c.status !== 'ok') throw new Error('fixture segment is not whole');
    starts.push(at);
    at = c.end;
  }
  return starts;
};

describe('embedded log damage', () => {
  it('stops the partition, without skipping a record, on a bad byte at any position of a closed segment', async () => {
    const { dir, segments } = await writtenPartition();
    expect(segments).toHaveLength(2);
    const original = await readFile(segments[0]!);
    for (let at = 0; at < original.length; at++) {
      const bytes = Buffer.from(original);
      bytes[at]! ^= 0xff;
      await writeFile(segments[0]!, bytes);
      const { log, damage } = await openLog(dir);
      const { seqs, error } = await readAll(log);
      expect(error?.message, `byte ${at}`).toMatch(/damaged and stopped: bad frame in a closed segment/);
      expect(seqs).toEqual(seqs.map((_, i) => i));
      expect(damage).toEqual(['corrupt']);
      await expect(log.append([jsonMessage('k', { seq: 99 })])).rejects.toThrow(/damaged and stopped/);
      await log.close();
    }
    await writeFile(segments[0]!, original);
    const { log } = await openLog(dir);
    expect((await readAll(log)).seqs).toEqual([0, 1, 2, 3, 4, 5]);
    await log.close();
  });

  it('cuts nothing and stops the partition on a bad byte anywhere in the last segment but the last frame’s length', async () => {
    const { dir, segments } = await writtenPartition();
    const last = segments.at(-1)!;
    const original = await readFile(last);
    const lastFrame = frameStarts(original).at(-1)!;
    for (let at = 0; at < original.length; at++) {
      const bytes = Buffer.from(original);
      bytes[at]! ^= 0xff;
      await writeFile(last, bytes);
      const { log, damage } = await openLog(dir);
      const onDisk = await readFile(last);
      if (at >= lastFrame && at < lastFrame + 4 && damage[0] === 'torn_tail') {
        // A length that now reaches past the end of the file reads as a write cut short: cut there, nothing before.
        expect(onDisk.equals(original.subarray(0, lastFrame)), `byte ${at}`).toBe(true);
      } else {
        expect(damage, `byte ${at}`).toEqual(['corrupt']);
        expect(onDisk.equals(bytes), `byte ${at}: the file was cut`).toBe(true);
        const { seqs, error } = await readAll(log);
        expect(error?.message).toMatch(/damaged and stopped/);
        expect(seqs).toEqual([]);
        await expect(log.append([jsonMessage('k', { seq: 99 })])).rejects.toThrow(/damaged and stopped/);
      }
      await log.close();
    }
  });

  it('cuts a torn tail at every point of the unacknowledged frame, keeps every acknowledged record, and counts it', async () => {
    const { dir, segments } = await writtenPartition();
    const last = segments.at(-1)!;
    const original = await readFile(last);
    const torn = encodeFrame(jsonMessage('k', { seq: 6 }), RECORDS, Date.now());
    for (let cut = 1; cut < torn.length; cut++) {
      await writeFile(last, Buffer.concat([original, torn.subarray(0, cut)]));
      const { log, damage } = await openLog(dir);
      expect(damage, `cut at ${cut}`).toEqual(['torn_tail']);
      expect((await readFile(last)).equals(original)).toBe(true);
      expect((await readAll(log)).seqs).toEqual([0, 1, 2, 3, 4, 5]);
      await log.close();
    }
    const { log } = await openLog(dir);
    await log.append([jsonMessage('k', { seq: 6 })]);
    expect((await readAll(log)).seqs).toEqual([0, 1, 2, 3, 4, 5, 6]);
    await log.close();
  });

  it('counts damage in weir_log_damage_total and keeps a consumer at the damaged offset', async () => {
    const { segments } = await writtenPartition();
    // Lay the partition out as partition 0 of topic t of a bus directory.
    const root = await mkdtemp(path.join(os.tmpdir(), 'weir-log-damage-bus-'));
    const bus0 = await createEmbeddedBus({ dir: root, log: silent });
    await bus0.ensureTopics([{ topic: 't', partitions: 1 }]);
    await bus0.close();
    for (const file of segments) {
      const bytes = await readFile(file);
      if (file === segments[0]) bytes[bytes.length - 5]! ^= 0xff;
      await writeFile(path.join(root, 'topics', 't', '0', path.basename(file)), bytes);
    }
    const metrics = new Registry();
    const bus = await createEmbeddedBus({ dir: root, log: silent, metrics, retryBackoffMs: 10, pollIntervalMs: 50 });
    const seen: number[] = [];
    const sub = await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      eachBatch: async ({ messages }) => {
        for (const m of messages) seen.push((JSON.parse(m.value.toString()) as { seq: number }).seq);
      },
    });
    const deadline = Date.now() + 20_000;
    while (!(await metrics.getSingleMetricAsString('weir_log_damage_total')).includes('kind="corrupt"} 1')) {
      if (Date.now() > deadline) throw new Error('no damage counted');
      await new Promise((r) => setTimeout(r, 50));
    }
    await sub.stop();
    expect(seen).toEqual([]);
    expect(await bus.lag('g', 't')).toEqual([{ partition: 0, lag: RECORDS }]);
    await bus.close();
  });
});
