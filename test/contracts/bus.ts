import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Batch, Bus, ConsumedMessage, OutgoingMessage, SubscribeOptions, Subscription } from '../../infra/bus/types.js';

export interface BusContractOptions {
  /** How long to wait for deliveries before failing; a real broker rebalances slowly. */
  timeoutMs?: number;
}

/** Topic and group names unique per test, so one broker can serve every run. */
export const uniqueName = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

export const jsonMessage = (key: string | null, body: Record<string, unknown>, headers?: Record<string, string>): OutgoingMessage => ({
  key,
  value: Buffer.from(JSON.stringify(body)),
  ...(headers ? { headers } : {}),
});

export const bodyOf = (m: ConsumedMessage): Record<string, unknown> => JSON.parse(m.value.toString('utf8')) as Record<string, unknown>;
const seqOf = (m: ConsumedMessage): number => bodyOf(m).seq as number;

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

export interface Consumption {
  /** Messages of batches whose handler resolved, in delivery order. */
  delivered: ConsumedMessage[];
  /** Every batch handed to the handler, including failed attempts. */
  attempts: Batch[];
  /** Resolves once `done(delivered)` holds; fails after the timeout saying what did arrive. */
  waitFor(what: string, done: (delivered: ConsumedMessage[]) => boolean): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Subscribes and records deliveries. `handle` runs before a batch counts as delivered; a throw
 * there fails the batch as a handler would.
 */
export async function consume(
  bus: Bus,
  options: Omit<SubscribeOptions, 'eachBatch'> & { handle?: (batch: Batch) => Promise<void> },
  timeoutMs = 60_000,
): Promise<Consumption> {
  const delivered: ConsumedMessage[] = [];
  const attempts: Batch[] = [];
  const waiters = new Set<() => void>();
  const { handle, ...subscribeOptions } = options;
  const subscription: Subscription = await bus.subscribe({
    ...subscribeOptions,
    eachBatch: async (batch) => {
      attempts.push(batch);
      await handle?.(batch);
      delivered.push(...batch.messages);
      waiters.forEach((w) => w());
    },
  });
  return {
    delivered,
    attempts,
    waitFor: (what, done) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!done(delivered)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${what}: ${delivered.length} messages delivered, ${attempts.length} batches attempted`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    stop: () => subscription.stop(),
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const totalLag = async (bus: Bus, groupId: string, topic: string): Promise<number> =>
  (await bus.lag(groupId, topic)).reduce((sum, p) => sum + p.lag, 0);

/** What every Bus (embedded log, Kafka) must do. `makeBus` gives a fresh, open bus per test. */
export function busContract(name: string, makeBus: () => Promise<Bus>, opts: BusContractOptions = {}): void {
  const timeoutMs = opts.timeoutMs ?? 60_000;

  describe(`Bus contract: ${name}`, () => {
    const open: Bus[] = [];
    const stoppers: (() => Promise<void>)[] = [];
    const newBus = async (): Promise<Bus> => {
      const bus = await makeBus();
      open.push(bus);
      return bus;
    };
    const consuming = async (bus: Bus, options: Parameters<typeof consume>[1]): Promise<Consumption> => {
      const c = await consume(bus, options, timeoutMs);
      stoppers.push(() => c.stop());
      return c;
    };

    /** A fresh bus, a new topic holding `count` messages `{seq}` keyed by `keyOf`, and a new group id. */
    const seeded = async (prefix: string, partitions: number, count: number, keyOf: (seq: number) => string = () => 'k') => {
      const bus = await newBus();
      const topic = uniqueName(prefix);
      await bus.ensureTopics([{ topic, partitions }]);
      if (count > 0) await bus.send(topic, Array.from({ length: count }, (_, seq) => jsonMessage(keyOf(seq), { seq })));
      return { bus, topic, groupId: uniqueName('g') };
    };

    afterEach(async () => {
      await Promise.allSettled(stoppers.splice(0).map((s) => s()));
      await Promise.allSettled(open.splice(0).map((b) => b.close()));
    });

    it('reports itself and a running subscription up, and down once closed or stopped', async () => {
      const { bus, topic, groupId } = await seeded('health', 1, 1);
      expect(await bus.health()).toEqual({ ok: true });
      const subscription = await bus.subscribe({ groupId, topics: [topic], eachBatch: async () => undefined });
      expect(subscription.health()).toEqual({ ok: true });
      await subscription.stop();
      expect(subscription.health()).toMatchObject({ ok: false });
      await bus.close();
      expect(await bus.health()).toMatchObject({ ok: false, detail: 'closed' });
    });

    it('ensureTopics is idempotent and leaves an existing topic as it is', async () => {
      const bus = await newBus();
      const topic = uniqueName('ensure');
      await bus.ensureTopics([{ topic, partitions: 3 }]);
      await bus.ensureTopics([{ topic, partitions: 3 }]);
      await bus.ensureTopics([{ topic, partitions: 5 }]);
      expect((await bus.lag(uniqueName('g'), topic)).map((p) => p.partition).sort()).toEqual([0, 1, 2]);
    });

    it('delivers the messages of one key in order, from one partition, with dense offsets', async () => {
      const bus = await newBus();
      const topic = uniqueName('order');
      await bus.ensureTopics([{ topic, partitions: 4 }]);
      const keys = Array.from({ length: 10 }, (_, i) => `key-${i}`);
      let seq = 0;
      for (let round = 0; round < 5; round++) {
        await bus.send(topic, Array.from({ length: 40 }, (_, i) => jsonMessage(keys[i % keys.length]!, { seq: seq++ })));
      }
      const c = await consuming(bus, { groupId: uniqueName('g'), topics: [topic] });
      await c.waitFor('200 messages', (d) => d.length >= 200);

      expect(c.delivered).toHaveLength(200);
      for (const key of keys) {
        const mine = c.delivered.filter((m) => m.key === key);
        expect(new Set(mine.map((m) => m.partition)).size).toBe(1);
        expect(mine.map(seqOf)).toEqual([...mine.map(seqOf)].sort((a, b) => a - b));
        expect(mine).toHaveLength(20);
      }
      for (const m of c.delivered) expect(m.topic).toBe(topic);
      const byPartition = groupBy(c.delivered, (m) => m.partition);
      for (const msgs of byPartition.values()) {
        const offsets = msgs.map((m) => Number(m.offset));
        expect(offsets).toEqual(offsets.map((_, i) => offsets[0]! + i));
      }
    });

    it('spreads keys across partitions and keeps each key on one', async () => {
      const { bus, topic, groupId } = await seeded('spread', 6, 300, (seq) => `entity-${seq % 100}`);
      const c = await consuming(bus, { groupId, topics: [topic] });
      await c.waitFor('300 messages', (d) => d.length >= 300);
      const partitionsOfKey = groupBy(c.delivered, (m) => m.key);
      for (const msgs of partitionsOfKey.values()) expect(new Set(msgs.map((m) => m.partition)).size).toBe(1);
      expect(new Set(c.delivered.map((m) => m.partition)).size).toBeGreaterThanOrEqual(4);
    });

    it('round-trips headers, binary values and null keys', async () => {
      const bus = await newBus();
      const topic = uniqueName('roundtrip');
      await bus.ensureTopics([{ topic, partitions: 3 }]);
      const binary = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x7b]);
      await bus.send(topic, [
        { key: null, value: Buffer.from('{"seq":0}'), headers: { 'x-trace': 'abc', 'x-note': 'ünïcode ✓' } },
        { key: 'k', value: binary, headers: { empty: '' } },
        { key: null, value: Buffer.alloc(0) },
      ]);
      const c = await consuming(bus, { groupId: uniqueName('g'), topics: [topic] });
      // Delivery is at least once (a producer retry or a rebalance on a busy broker can deliver one
      // twice before another arrives): wait for each of the three, not for three deliveries.
      const seq0 = (m: ConsumedMessage) => m.value.toString() === '{"seq":0}';
      await c.waitFor('the 3 messages', (d) => d.some(seq0) && d.some((m) => m.key === 'k') && d.some((m) => m.value.length === 0));

      const first = c.delivered.find(seq0);
      expect(first?.key).toBeNull();
      expect(first?.headers).toEqual({ 'x-trace': 'abc', 'x-note': 'ünïcode ✓' });
      const second = c.delivered.find((m) => m.key === 'k');
      expect(second?.value.equals(binary)).toBe(true);
      expect(second?.headers).toEqual({ empty: '' });
      const third = c.delivered.find((m) => m.value.length === 0);
      expect(third?.key).toBeNull();
      for (const m of c.delivered) expect(m.timestamp).toBeGreaterThan(Date.UTC(2020, 0, 1));
    });

    it('resumes a group from its committed offset, without redelivering what was committed', async () => {
      const { bus, topic, groupId } = await seeded('resume', 1, 10);
      const first = await consuming(bus, { groupId, topics: [topic] });
      await first.waitFor('10 messages', (d) => d.length >= 10);
      await first.stop();

      await bus.send(topic, Array.from({ length: 5 }, (_, i) => jsonMessage('k', { seq: 10 + i })));
      const second = await consuming(bus, { groupId, topics: [topic] });
      await second.waitFor('5 new messages', (d) => d.length >= 5);
      expect(second.delivered.map(seqOf)).toEqual([10, 11, 12, 13, 14]);
      expect(second.delivered.map((m) => m.offset)).toEqual(['10', '11', '12', '13', '14']);
    });

    it('retries a batch whose handler throws, and commits it only once it succeeds', async () => {
      const { bus, topic, groupId } = await seeded('retry', 1, 4);
      let failuresLeft = 1;
      const c = await consuming(bus, {
        groupId,
        topics: [topic],
        handle: async () => {
          if (failuresLeft-- > 0) throw new Error('handler failure (expected by the test)');
        },
      });
      await c.waitFor('4 messages after the retry', (d) => d.length >= 4);
      expect(c.attempts.length).toBeGreaterThanOrEqual(2);
      expect(c.attempts[0]!.messages[0]!.offset).toBe('0');
      expect(c.attempts[1]!.messages[0]!.offset).toBe('0');
      expect(c.delivered.map(seqOf)).toEqual([0, 1, 2, 3]);
    });

    it('redelivers, after a re-subscribe, a batch whose handler never succeeded', async () => {
      const { bus, topic, groupId } = await seeded('uncommitted', 1, 3);
      const firstFailure = deferred();
      const failing = await consume(
        bus,
        {
          groupId,
          topics: [topic],
          handle: async () => {
            firstFailure.resolve();
            throw new Error('always fails (expected by the test)');
          },
        },
        timeoutMs,
      );
      await firstFailure.promise;
      await failing.stop();
      expect(failing.delivered).toHaveLength(0);
      expect(await totalLag(bus, groupId, topic)).toBe(3);

      const healthy = await consuming(bus, { groupId, topics: [topic] });
      await healthy.waitFor('3 messages', (d) => d.length >= 3);
      expect(healthy.delivered.map(seqOf)).toEqual([0, 1, 2]);
    });

    it('stop() lets the batch in flight finish and commit', async () => {
      const { bus, topic, groupId } = await seeded('stop', 1, 5);
      const inHandler = deferred();
      const gate = deferred();
      let finished = 0;
      const c = await consume(bus, {
        groupId,
        topics: [topic],
        handle: async (batch) => {
          inHandler.resolve();
          await gate.promise;
          finished += batch.messages.length;
        },
      }, timeoutMs);
      await inHandler.promise;
      let stopped = false;
      const stopping = c.stop().then(() => (stopped = true));
      await new Promise((r) => setTimeout(r, 50));
      expect(stopped).toBe(false);
      gate.resolve();
      await stopping;
      expect(finished).toBeGreaterThan(0);
      expect(await totalLag(bus, groupId, topic)).toBe(5 - finished);
    });

    it('reports lag per partition from the committed offsets', async () => {
      const { bus, topic, groupId } = await seeded('lag', 2, 20, (seq) => `k${seq}`);
      const before = await bus.lag(groupId, topic);
      expect(before.map((p) => p.partition).sort()).toEqual([0, 1]);
      expect(before.reduce((s, p) => s + p.lag, 0)).toBe(20);

      const c = await consuming(bus, { groupId, topics: [topic] });
      await c.waitFor('20 messages', (d) => d.length >= 20);
      await c.stop();
      expect(await totalLag(bus, groupId, topic)).toBe(0);

      await bus.send(topic, Array.from({ length: 7 }, (_, seq) => jsonMessage(`n${seq}`, { seq })));
      expect(await totalLag(bus, groupId, topic)).toBe(7);
    });

    it('with lingerMs, delivers records sent one by one within the wait in one batch', async () => {
      const bus = await newBus();
      const topic = uniqueName('linger');
      await bus.ensureTopics([{ topic, partitions: 1 }]);
      const c = await consuming(bus, { groupId: uniqueName('g'), topics: [topic], lingerMs: 3_000 });
      // Each send is durable before the next: without the wait, the first would come alone.
      for (let seq = 0; seq < 5; seq++) await bus.send(topic, [jsonMessage('k', { seq })]);
      await c.waitFor('5 messages', (d) => d.length >= 5);
      expect(c.attempts.map((b) => b.messages.length)).toEqual([5]);
    });

    it('lets two groups consume the same topic independently', async () => {
      const { bus, topic, groupId: groupA } = await seeded('groups', 2, 10, (seq) => `k${seq}`);
      const groupB = uniqueName('g');
      const a = await consuming(bus, { groupId: groupA, topics: [topic] });
      const b = await consuming(bus, { groupId: groupB, topics: [topic] });
      await a.waitFor('10 messages in group A', (d) => d.length >= 10);
      await b.waitFor('10 messages in group B', (d) => d.length >= 10);
      await a.stop();

      await bus.send(topic, Array.from({ length: 5 }, (_, i) => jsonMessage(`k${i}`, { seq: 10 + i })));
      await b.waitFor('15 messages in group B', (d) => d.length >= 15);
      expect(await totalLag(bus, groupA, topic)).toBe(5);
      const again = await consuming(bus, { groupId: groupA, topics: [topic] });
      await again.waitFor('5 new messages in group A', (d) => d.length >= 5);
      expect(again.delivered.map(seqOf).sort((x, y) => x - y)).toEqual([10, 11, 12, 13, 14]);
      expect(b.delivered.map(seqOf).sort((x, y) => x - y)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    });

    it('starts a new group at the beginning by default, and at the end with fromBeginning: false', async () => {
      const bus = await newBus();
      const topic = uniqueName('from');
      await bus.ensureTopics([{ topic, partitions: 1 }]);
      await bus.send(topic, Array.from({ length: 3 }, (_, seq) => jsonMessage('k', { seq, phase: 'old' })));

      const earliest = await consuming(bus, { groupId: uniqueName('g'), topics: [topic] });
      await earliest.waitFor('the 3 old messages', (d) => d.length >= 3);
      expect(earliest.delivered.map(seqOf)).toEqual([0, 1, 2]);

      const latest = await consuming(bus, { groupId: uniqueName('g'), topics: [topic], fromBeginning: false });
      // A broker may take a while to place a new member: send until one new message arrives.
      let seq = 100;
      const sender = setInterval(() => bus.send(topic, [jsonMessage('k', { seq: seq++, phase: 'new' })]).catch(() => undefined), 250);
      try {
        await latest.waitFor('a new message', (d) => d.length >= 1);
      } finally {
        clearInterval(sender);
      }
      expect(latest.delivered.every((m) => bodyOf(m).phase === 'new')).toBe(true);
    });
  });
}
