import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmbeddedBus } from '../infra/bus/embedded/index.js';
import { createKafkaBus } from '../infra/bus/kafka/index.js';
import { DLQ_REASON_HEADER, dlqTopic, type Bus } from '../infra/bus/types.js';
import { createCodec } from '../infra/codec/index.js';
import type { Platform } from '../infra/platform.js';
import { handleIsolating, isTransient } from '../pipelines/handler-failures.js';
import { startStage } from '../pipelines/stage.js';
import type { Stoppable } from '../infra/lifecycle.js';
import { consume, jsonMessage, uniqueName } from './contracts/bus.js';
import { requireAddress, shouldRun } from './support/infra.js';

/**
 * Issue 10: a message that makes its handler throw must not block its partition. Transient
 * failures are retried; others are retried a bounded number of times, then the batch is split and
 * the record that fails alone goes to `<topic>.dlq` with the reason; the rest moves on.
 */

const log = pino({ level: 'silent' });
const fast = { attempts: 3, backoffMs: 5 };

describe('handleIsolating', () => {
  it('splits down to the one record that fails alone and handles every other one', async () => {
    const handled: number[] = [];
    const failed = await handleIsolating(
      Array.from({ length: 20 }, (_, i) => i),
      async (rs) => {
        if (rs.includes(7) || rs.includes(13)) throw new TypeError(`bad record in ${rs.length}`);
        handled.push(...rs);
      },
      fast,
    );
    expect(failed.map((f) => f.record)).toEqual([7, 13]);
    expect(failed[0]!.reason).toMatch(/^handler failed 3 times: TypeError: bad record in 1$/);
    expect(handled).toEqual(Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== 7 && i !== 13));
  });

  it('throws a transient failure at once, so the batch is retried whole and nothing is dead-lettered', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' });
    let calls = 0;
    await expect(
      handleIsolating([1, 2, 3], async () => {
        calls++;
        throw new Error('insert failed', { cause: refused });
      }, fast),
    ).rejects.toThrow('insert failed');
    expect(calls).toBe(1);
    expect(isTransient(Object.assign(new Error('x'), { type: 'TOO_MANY_PARTS' }))).toBe(true);
    expect(isTransient(Object.assign(new Error('Cannot parse input'), { type: 'CANNOT_PARSE_INPUT_ASSERTION_FAILED' }))).toBe(false);
  });
});

function stageSuite(name: string, openBus: () => Promise<Bus>) {
  describe(`a stage on ${name}`, () => {
    const stops: Stoppable[] = [];
    afterEach(async () => {
      for (const s of stops.splice(0)) await s.stop();
    });

    it('dead-letters the message its handler keeps failing on, commits, and keeps every partition moving', async () => {
      const bus = await openBus();
      stops.push({ stop: () => bus.close() });
      const topic = uniqueName('stage-poison');
      await bus.ensureTopics([{ topic, partitions: 3 }, { topic: dlqTopic(topic), partitions: 1 }]);
      const platform = { bus, codec: createCodec(), log, metrics: new Registry() } as unknown as Platform;
      const handled: number[] = [];
      let transientLeft = 2;
      const name = uniqueName('poison');
      const stage = await startStage({
        platform,
        name,
        topic,
        schema: z.object({ seq: z.number(), poison: z.boolean().optional(), flaky: z.boolean().optional() }),
        retry: fast,
        async handle(records) {
          if (records.some((r) => r.value.poison)) throw new RangeError(`row refused: seq ${records.find((r) => r.value.poison)!.value.seq}`);
          // An outage: retried (whole batch, uncommitted) until it passes, never dead-lettered.
          if (records.some((r) => r.value.flaky) && transientLeft-- > 0) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
          handled.push(...records.map((r) => r.value.seq));
        },
      });
      stops.unshift(stage);
      const messages = Array.from({ length: 60 }, (_, seq) => jsonMessage(`k${seq % 6}`, { seq, ...(seq === 10 || seq === 41 ? { poison: true } : {}), ...(seq === 20 ? { flaky: true } : {}) }));
      await bus.send(topic, messages);

      const dlq = await consume(bus, { groupId: uniqueName('dlq-reader'), topics: [dlqTopic(topic)], fromBeginning: true });
      await dlq.waitFor('both poison messages', (d) => d.length >= 2);
      await dlq.stop();
      expect(dlq.delivered.map((m) => JSON.parse(m.value.toString()).seq).sort()).toEqual([10, 41]);
      expect(dlq.delivered.map((m) => m.headers?.[DLQ_REASON_HEADER])).toEqual(expect.arrayContaining([expect.stringMatching(/^handler failed 3 times: RangeError: row refused: seq (10|41)$/)]));

      const deadline = Date.now() + 60_000;
      const settled = async () => new Set(handled).size === 58 && (await bus.lag(`weir.${name}`, topic)).every((p) => p.lag === 0);
      while (!(await settled())) {
        if (Date.now() > deadline) throw new Error(`handled ${new Set(handled).size}, lag ${JSON.stringify(await bus.lag(`weir.${name}`, topic))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect([...new Set(handled)].sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i).filter((i) => i !== 10 && i !== 41));
      // Per key, order is kept.
      for (let k = 0; k < 6; k++) {
        const ofKey = handled.filter((s) => s % 6 === k);
        expect(ofKey).toEqual([...ofKey].sort((a, b) => a - b));
      }
    });

    it('hands a batch over in parts, in order and one at a time, the next part decoded while one is handled; a failed part commits nothing of the batch', async () => {
      const bus = await openBus();
      stops.push({ stop: () => bus.close() });
      const topic = uniqueName('stage-parts');
      await bus.ensureTopics([{ topic, partitions: 1 }, { topic: dlqTopic(topic), partitions: 1 }]);
      // Sent before the stage starts: one batch of seven.
      await bus.send(topic, Array.from({ length: 7 }, (_, seq) => jsonMessage('k', { seq })));
      const platform = { bus, codec: createCodec(), log, metrics: new Registry() } as unknown as Platform;
      const decoded: number[] = [];
      const parts: number[][] = [];
      let handling = false;
      let overlapped = false;
      let failPart = true;
      const name = uniqueName('parts');
      const stage = await startStage({
        platform,
        name,
        topic,
        partSize: 3,
        retry: fast,
        schema: z.object({ seq: z.number() }).transform((v) => {
          decoded.push(v.seq);
          return v;
        }),
        async handle(records) {
          overlapped ||= handling;
          handling = true;
          try {
            const seqs = records.map((r) => r.value.seq);
            parts.push(seqs);
            // The second part is decoded after the first reached the handler, while it is handled.
            if (seqs[0] === 0) expect(decoded.slice(decoded.lastIndexOf(0))).toEqual([0, 1, 2]);
            if (seqs[0] === 0) await vi.waitFor(() => expect(decoded.slice(decoded.lastIndexOf(0))).toContain(3), { timeout: 5_000, interval: 5 });
            if (seqs[0] === 3 && failPart) {
              failPart = false;
              throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
            }
          } finally {
            handling = false;
          }
        },
      });
      stops.unshift(stage);
      await vi.waitFor(async () => expect(await bus.lag(`weir.${name}`, topic)).toEqual([{ partition: 0, lag: 0 }]), { timeout: 60_000, interval: 50 });
      // The failed second part left the batch uncommitted: delivered again from its first record.
      expect(parts).toEqual([[0, 1, 2], [3, 4, 5], [0, 1, 2], [3, 4, 5], [6]]);
      expect(overlapped).toBe(false);
    });
  });
}

stageSuite('the embedded log', async () => createEmbeddedBus({ dir: await mkdtemp(path.join(os.tmpdir(), 'weir-stage-')), log, retryBackoffMs: 20, pollIntervalMs: 50 }));

describe.skipIf(!shouldRun('kafkaBrokers'))('on Kafka', () => {
  stageSuite('Kafka', async () => createKafkaBus({ brokers: requireAddress('kafkaBrokers').split(','), clientId: `weir-test-${process.pid}`, log }));
});
