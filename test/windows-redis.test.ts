import { createHash, randomUUID } from 'node:crypto';
import { Command, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { idDigest } from '../infra/windows/event-ids.js';
import { connectWindowRedis, createRedisWindowStore } from '../infra/windows/redis/index.js';
import { parseRedisUrl } from '../infra/windows/redis/url.js';
import { framedScript, RespWriter } from '../infra/windows/redis/resp-frame.js';
import type { SeriesUpdate } from '../infra/windows/types.js';
import { windowStoreContract } from './contracts/windows.js';

const url = process.env.WEIR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const runPrefix = `test:${randomUUID()}:`;
let stores = 0;
const admin = new Redis(url);

// File-level, so it runs however the tests are filtered: idle entities would otherwise stay 100 days.
afterAll(async () => {
  const leftovers = await admin.keys(`${runPrefix}*`);
  if (leftovers.length > 0) await admin.unlink(...leftovers);
  await admin.quit();
});

windowStoreContract('redis', async (opts) =>
  createRedisWindowStore({ url, keyPrefix: `${runPrefix}${++stores}:`, ...opts }),
);

describe('redis window store: key layout', () => {

  const SLOT_MS = 21_600_000;
  const DAY_MS = 86_400_000;
  /** The 8 bytes of an id's digest kept as its field, and the bucket of a generation of b buckets (event-ids.ts). */
  const fieldOf = (id: string): Buffer => idDigest(id).subarray(4, 12);
  const bucketOf = (id: string, b: number): number => idDigest(id).readUInt32BE(0) % b;
  /** The id fields of a bucket (8-byte digests, as hex), beside its marks `o` and `l`, with their values. */
  const idFields = async (bucket: string): Promise<Map<string, string>> => {
    const fields = (await admin.hkeysBuffer(bucket)).filter((f) => f.length === 8);
    const values = fields.length > 0 ? await admin.hmgetBuffer(bucket, ...fields) : [];
    return new Map(fields.map((f, i) => [f.toString('hex'), values[i]!.toString()]));
  };

  it('keeps an entity in one hash and its expiry; event ids in buckets of its scope, expiring a window after the slot of their last id', async () => {
    const keyPrefix = `${runPrefix}layout:`;
    const store = createRedisWindowStore({ url, keyPrefix, idleTtlMs: 3_600_000 });
    try {
      await store.apply([
        { entity: { scope: 'acme', id: 'u1' }, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }], once: { id: 'e1', ttlMs: DAY_MS } },
      ]);
      const keys = (await admin.keys(`${keyPrefix}*`)).sort();
      const slot = Math.floor(Date.now() / SLOT_MS);
      const expireAt = (slot + 1) * SLOT_MS + DAY_MS;
      // The ids' meta hash and the one bucket of their first generation (one bucket).
      const meta = `${keyPrefix}j:{acme}:${SLOT_MS}`;
      const bucket = `${meta}:1:0`;
      expect(keys).toEqual([meta, bucket, `${keyPrefix}{acme:u1}`]);
      const ttl = await admin.pttl(`${keyPrefix}{acme:u1}`);
      expect(ttl).toBeGreaterThan(3_500_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000);
      // The id counts for the window (24 h) after the end of the current six-hour slot (its slot is
      // stored with it); keys expire three slots later, so an expiry is set once in four slots.
      const keyExpiry = expireAt + 3 * SLOT_MS;
      expect(await admin.pexpiretime(bucket)).toBe(keyExpiry);
      expect(await admin.pexpiretime(meta)).toBe(keyExpiry);
      expect(await admin.hgetall(bucket)).toMatchObject({ o: String(slot), l: String(keyExpiry) });
      expect([...(await idFields(bucket)).values()]).toEqual([`${slot},1`]);
      expect(await admin.hgetall(meta)).toEqual({ top: '1', c: String(slot), n: '1', e: String(keyExpiry), 1: `1,${slot},${expireAt}` });
    } finally {
      await store.close();
    }
  });

  it('keeps one entry of a few bytes per event id, whether intake reserved it or not', async () => {
    const keyPrefix = `${runPrefix}ids:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    const n = 20_000;
    try {
      const ids = Array.from({ length: n }, (_, i) => `event-${i}`);
      // Half arrive over HTTP (reserved, then applied by the pipeline), half straight from the topic.
      expect(await store.reserveIds('acme', ids.slice(0, n / 2), DAY_MS)).toEqual(ids.slice(0, n / 2).map(() => 'new'));
      const applied = await store.apply(ids.map((id, i) => ({ entity: { scope: 'acme', id: `u${i % 100}` }, updates: [], once: { id, ttlMs: DAY_MS } })));
      expect(applied.every(Boolean)).toBe(true);
      const keys = await admin.keys(`${keyPrefix}*`);
      expect(keys.every((k) => k.startsWith(`${keyPrefix}j:{acme}:`))).toBe(true);
      const buckets = keys.filter((k) => /\}:\d+:\d+:\d+$/.test(k));
      const fields = await Promise.all(buckets.map(idFields));
      expect(fields.reduce((a, f) => a + f.size, 0)).toBe(n);
      const slot = Math.floor(Date.now() / SLOT_MS);
      expect(new Set(fields.flatMap((f) => [...f.values()]))).toEqual(new Set([`${slot},1`]));
    } finally {
      await store.close();
    }
  });

  it('opens generations of buckets as the ids of a slot grow, with their counts kept across calls', async () => {
    const keyPrefix = `${runPrefix}generations:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    try {
      const ids = Array.from({ length: 250 }, (_, i) => `gen-${i}`);
      // Calls of ten ids, so the counts must survive from one script call to the next.
      for (let i = 0; i < ids.length; i += 10) expect(await store.reserveIds('acme', ids.slice(i, i + 10), DAY_MS)).toEqual(Array(10).fill('new'));
      const slot = Math.floor(Date.now() / SLOT_MS);
      const expireAt = (slot + 1) * SLOT_MS + DAY_MS;
      // A 24-hour window spans five slots: a generation grows sixteen-fold once 5 × (ids this slot) passes 64 a
      // bucket (after 12 ids, then 204), so a burst leaves half the generations, each searched for a new id.
      const gen = (b: number): string => `${b},${slot},${expireAt}`;
      const meta = { top: '3', c: String(slot), n: '250', e: String(expireAt + 3 * SLOT_MS), 1: gen(1), 2: gen(16), 3: gen(256) };
      expect(await admin.hgetall(`${keyPrefix}j:{acme}:${SLOT_MS}`)).toEqual(meta);
      // Every generation is searched: each id is found once, wherever it went.
      expect(await store.reserveIds('acme', ids, DAY_MS)).toEqual(ids.map(() => 'reserved'));
      const applied = await store.apply(ids.map((id, i) => ({ entity: { scope: 'acme', id: `u${i % 7}` }, updates: [], once: { id, ttlMs: DAY_MS } })));
      expect(applied).toEqual(ids.map(() => true));
      expect(await store.apply(ids.map((id) => ({ entity: { scope: 'acme', id: 'other' }, updates: [], once: { id, ttlMs: DAY_MS } })))).toEqual(ids.map(() => false));
    } finally {
      await store.close();
    }
  });

  it('shrinks the newest generation four-fold at a slot start when the last slot filled it under 16 ids a bucket', async () => {
    const keyPrefix = `${runPrefix}shrink:`;
    const slot = Math.floor(Date.now() / SLOT_MS);
    const expireAt = (slot + 1) * SLOT_MS + DAY_MS;
    const metaKey = `${keyPrefix}j:{acme}:${SLOT_MS}`;
    // The slot before grew a generation of 256 buckets and added 300 ids: 5 × 300 over the window, under 16 a bucket.
    await admin.hset(metaKey, 'top', 1, 'c', slot - 1, 'n', 300, 'e', expireAt, '1', `256,${slot - 1},${expireAt}`);
    const store = createRedisWindowStore({ url, keyPrefix });
    try {
      expect(await store.reserveIds('acme', ['first-of-slot'], DAY_MS)).toEqual(['new']);
      expect(await admin.hmget(metaKey, 'top', '2', 'c', 'n')).toEqual(['2', `64,${slot},${expireAt}`, String(slot), '1']);
    } finally {
      await store.close();
    }
  });

  it('forgets an id whose slot left the window, and prunes it from its bucket when written two slots later', async () => {
    const keyPrefix = `${runPrefix}prune:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    try {
      expect(await store.reserveIds('acme', ['first'], DAY_MS)).toEqual(['new']);
      const slot = Math.floor(Date.now() / SLOT_MS);
      const first = Math.floor((Date.now() - DAY_MS) / SLOT_MS);
      const bucket = `${keyPrefix}j:{acme}:${SLOT_MS}:1:0`;
      // As a bucket may stand a day later: ids of the window's first slot (kept) and of the two before (forgotten).
      await admin.hset(bucket, fieldOf('edge'), `${first},1`, fieldOf('stale'), `${first - 1},1`, fieldOf('late'), `${first - 2},0`, 'o', String(first - 2));
      expect(await store.reserveIds('acme', ['edge', 'stale'], DAY_MS)).toEqual(['applied', 'new']);
      const fields = await idFields(bucket);
      expect(fields.get(fieldOf('edge').toString('hex'))).toBe(`${first},1`);
      expect(fields.get(fieldOf('stale').toString('hex'))).toBe(`${slot},0`);
      expect(fields.has(fieldOf('late').toString('hex'))).toBe(false);
      expect(await admin.hget(bucket, 'o')).toBe(String(first));
      expect(await store.apply([{ entity: { scope: 'acme', id: 'u1' }, updates: [], once: { id: 'late', ttlMs: DAY_MS } }])).toEqual([true]);
    } finally {
      await store.close();
    }
  });

  it('still finds ids of the earlier layout (a bucket per six-hour slot), and changes their state in place', async () => {
    const keyPrefix = `${runPrefix}legacy:`;
    const slot = Math.floor(Date.now() / SLOT_MS);
    // Written before the upgrade, a slot ago: one generation of four buckets.
    const meta = `${keyPrefix}i:{acme}:${SLOT_MS}:${slot - 1}`;
    await admin.hset(meta, 'g', 1, 'b1', 4, 'n1', 3);
    const legacy = (id: string): string => `${meta}:1:${bucketOf(id, 4)}`;
    await admin.hset(legacy('applied'), fieldOf('applied'), '1');
    await admin.hset(legacy('reserved'), fieldOf('reserved'), '0');
    await admin.hset(legacy('dropped'), fieldOf('dropped'), '0');
    const store = createRedisWindowStore({ url, keyPrefix });
    const once = (id: string) => ({ entity: { scope: 'acme', id: 'u1' }, updates: [{ kind: 'sum' as const, series: 'n', bucket: 1, delta: 1, floor: 0 }], once: { id, ttlMs: DAY_MS } });
    try {
      expect(await store.reserveIds('acme', ['applied', 'reserved', 'new'], DAY_MS)).toEqual(['applied', 'reserved', 'new']);
      expect(await store.apply([once('applied'), once('reserved'), once('new')])).toEqual([false, true, true]);
      expect(await admin.hget(legacy('reserved'), fieldOf('reserved'))).toBe('1');
      expect(await store.apply([once('reserved'), once('new')])).toEqual([false, false]);
      await store.unreserveIds('acme', ['dropped', 'applied'], DAY_MS);
      expect(await admin.hexists(legacy('dropped'), fieldOf('dropped'))).toBe(0);
      expect(await admin.hget(legacy('applied'), fieldOf('applied'))).toBe('1');
      expect(await store.read({ scope: 'acme', id: 'u1' }, [{ kind: 'sum', series: 'n', floor: 0 }])).toEqual([2]);
    } finally {
      await store.close();
    }
  });

  it('reads an entity as the earlier scripts left it (HINCRBYFLOAT totals, a floor below its lowest bucket) and carries on', async () => {
    const keyPrefix = `${runPrefix}earlier-series:`;
    const h = `${keyPrefix}{acme:u1}`;
    // As the scripts before one read and one write per request left it: HINCRBYFLOAT's own texts,
    // and `l` at the floor of an eviction (5), below the lowest live bucket (7).
    for (const [f, d] of [['amt:7', '0.1'], ['amt:t', '0.1'], ['amt:9', '2.5'], ['amt:t', '2.5']] as const) await admin.hincrbyfloat(h, f, d);
    await admin.hset(h, 'amt:n', '2', 'amt:l', '5', 'n:9', '3', 'n:t', '3', 'n:n', '1', 'n:l', '9', 'seen:m', '1700000000500');
    const store = createRedisWindowStore({ url, keyPrefix });
    const entity = { scope: 'acme', id: 'u1' };
    try {
      expect(await store.read(entity, [{ kind: 'sum', series: 'amt', floor: 0 }, { kind: 'sum', series: 'n', floor: 0 }, { kind: 'max', series: 'seen' }])).toEqual([2.6, 3, 1_700_000_000_500]);
      await store.apply([{ entity, updates: [
        { kind: 'sum', series: 'amt', bucket: 9, delta: 0.3, floor: 8 },
        { kind: 'sum', series: 'n', bucket: 10, delta: 1, floor: 8 },
        { kind: 'max', series: 'seen', value: 1_700_000_000_100 },
      ] }]);
      expect(await store.read(entity, [{ kind: 'sum', series: 'amt', floor: 8 }, { kind: 'sum', series: 'n', floor: 0 }, { kind: 'max', series: 'seen' }])).toEqual([2.8, 4, 1_700_000_000_500]);
      expect(await admin.hgetall(h)).toEqual({
        'amt:9': '2.8', 'amt:t': '2.8', 'amt:n': '1', 'amt:l': '8',
        'n:9': '3', 'n:10': '1', 'n:t': '4', 'n:n': '2', 'n:l': '9',
        'seen:m': '1700000000500',
      });
    } finally {
      await store.close();
    }
  });

  it('reads an entity once and writes it once a request: one HMGET, one HSET and one PEXPIRE for three series', async () => {
    const keyPrefix = `${runPrefix}calls:`;
    const h = `${keyPrefix}{acme:u1}`;
    const store = createRedisWindowStore({ url, keyPrefix });
    const watcher = new Redis(url);
    const monitor = await watcher.monitor();
    const seen: string[] = [];
    let done: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[1] !== h) return;
      if (args[0]!.toLowerCase() === 'exists') done();
      else seen.push(args[0]!.toLowerCase());
    });
    const updates = (bucket: number): SeriesUpdate[] => [
      { kind: 'sum', series: 'count_1h', bucket, delta: 1, floor: bucket - 60 },
      { kind: 'sum', series: 'amount_24h', bucket: 7, delta: 12.5, floor: 0 },
      { kind: 'max', series: 'last_seen', value: bucket },
    ];
    try {
      await store.apply([{ entity: { scope: 'acme', id: 'u1' }, updates: updates(100) }]);
      await store.apply([{ entity: { scope: 'acme', id: 'u1' }, updates: updates(101) }, { entity: { scope: 'acme', id: 'u1' }, updates: updates(101), once: { id: 'e1', ttlMs: 60_000 } }]);
      // A command of the test's own marks the end: the monitor sees commands in the order they ran.
      await admin.exists(h);
      await finished;
      expect(seen).toEqual(Array(3).fill(['hmget', 'hset', 'pexpire']).flat());
      expect(await store.read({ scope: 'acme', id: 'u1' }, [{ kind: 'sum', series: 'count_1h', floor: 0 }, { kind: 'sum', series: 'amount_24h', floor: 0 }])).toEqual([3, 37.5]);
    } finally {
      await watcher.quit();
      await store.close();
    }
  });

  it('removes an emptied series from the hash', async () => {
    const keyPrefix = `${runPrefix}empty:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    try {
      const entity = { scope: 'acme', id: 'u1' };
      await store.apply([{ entity, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }] }]);
      expect(await store.read(entity, [{ kind: 'sum', series: 'n', floor: 5 }])).toEqual([0]);
      expect(await admin.exists(`${keyPrefix}{acme:u1}`)).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('moves queues of the earlier key layout once, keeping the earlier due time of an id in both', async () => {
    const keyPrefix = `${runPrefix}old-queues:`;
    // The layout before queues were tagged by organization alone: {q:<scope>:<queue>}.
    await admin.zadd(`${keyPrefix}{q:acme:dirty}`, 5, 'u1', 50, 'u2');
    await admin.zadd(`${keyPrefix}{q:acme:leases}`, 7, 'lease:u3');
    const store = createRedisWindowStore({ url, keyPrefix });
    try {
      await store.schedule('acme', 'dirty', [{ id: 'u2', dueAt: 60 }, { id: 'u4', dueAt: 6 }]);
      expect(await store.takeDue('acme', 'dirty', 100, 10)).toEqual(['u1', 'u4', 'u2']);
      expect(await store.takeDue('acme', 'leases', 100, 10)).toEqual(['lease:u3']);
      expect(await admin.exists(`${keyPrefix}{q:acme:dirty}`, `${keyPrefix}{q:acme:leases}`)).toBe(0);
    } finally {
      await store.close();
    }
  });
});

describe('redis window store: lowest reads of a large hash', () => {
  it('probes a large hash upward from the floor, at a bounded cost, and answers a bound past the probed buckets', async () => {
    const store = createRedisWindowStore({ url, keyPrefix: `${runPrefix}lowest:` });
    try {
      const entity = { scope: 'acme', id: 'busy' };
      const sum = (series: string, bucket: number): SeriesUpdate => ({ kind: 'sum', series, bucket, delta: 1, floor: 0 });
      // 600 buckets of one series make the hash larger than a scan is allowed (512 fields); another
      // series' only bucket lies 5,000 above the floor, past the 1,024 buckets a read probes.
      await store.apply([{ entity, updates: [...Array.from({ length: 600 }, (_, i) => sum('dense', 100 + i)), sum('sparse', 5_000)] }]);
      const lowest = (series: string, floor: number) => ({ kind: 'lowest' as const, series, floor });
      expect(await store.read(entity, [lowest('dense', 0), lowest('dense', 350), lowest('sparse', 0)])).toEqual([100, 350, 1_024]);
      // A later read starts from its own floor; the hash, evicted below 350 meanwhile, is now small enough to scan: exact.
      expect(await store.read(entity, [lowest('sparse', 4_000)])).toEqual([5_000]);
    } finally {
      await store.close();
    }
  });
});

describe('redis window store: the connection', () => {
  it('sends an apply as soon as it is called, while an earlier auto-pipeline of the same connection still waits for its answer', async () => {
    const client = connectWindowRedis(parseRedisUrl(url), 5_000) as Redis;
    const keyPrefix = `${runPrefix}at-once:`;
    const store = createRedisWindowStore({ url, client, keyPrefix });
    try {
      await client.ping();
      // What crosses the socket, in order: the apply's bytes going out, any answer coming in
      // (heard before ioredis reads it, which would send a held pipeline at once).
      const order: string[] = [];
      const socket = client.stream;
      socket.prependListener('data', () => order.push('answer'));
      const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
      socket.write = ((chunk: unknown, ...rest: unknown[]) => {
        if (String(chunk).includes(`${keyPrefix}{acme:u1}`)) order.push('apply');
        return write(chunk, ...rest);
      }) as typeof socket.write;
      // An auto-pipelined command that holds the server 300 ms: ioredis sends no later pipeline
      // of this connection until its answer is in.
      const busy = client.eval("local t = redis.call('TIME'); local s = t[1] * 1e6 + t[2]; repeat t = redis.call('TIME') until t[1] * 1e6 + t[2] - s > 300000; return 1", 0);
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      const applied = store.apply([{ entity: { scope: 'acme', id: 'u1' }, updates: [{ kind: 'sum', series: 'n', bucket: 1, delta: 1, floor: 0 }], once: { id: 'e1', ttlMs: 60_000 } }]);
      await Promise.all([busy, applied]);
      expect(order[0]).toBe('apply');
      expect(await store.read({ scope: 'acme', id: 'u1' }, [{ kind: 'sum', series: 'n', floor: 0 }])).toEqual([1]);
    } finally {
      await store.close();
    }
  });
});

describe('redis window store: the apply frame', () => {
  // Strings whose utf8 length needs more digits than their length (4 characters, 12 bytes), a
  // surrogate pair, an empty one, one of three-digit length, and a Buffer, as the apply sends them.
  const args: (string | Buffer)[] = ['2', '漢字漢字', 'w:{acme:ключ-é}', 'é'.repeat(50), '', 'x'.repeat(123), 'count%3ah1', 's,1,0.5,0', idDigest('e1'), '🙂'];
  const lua = "return 'é'";

  it('sends the bytes ioredis sends for the same arguments: EVAL on a connection the script is new to, then EVALSHA', async () => {
    const writer = new RespWriter(16);
    for (const a of args) {
      if (typeof a === 'string') writer.string(a);
      else writer.computed(a.length, (bytes, buf, at) => bytes.copy(buf, at), a);
    }
    const script = framedScript(lua);
    const frame = script.frame(writer);
    writer.reset();
    writer.string('reused');
    const socket = {};
    const written: Buffer[] = [];
    const redis = { sendCommand: async (c: Command) => written.push(c.toWritable(socket) as Buffer) } as unknown as Redis;
    await script.call(redis, frame);
    await script.call(redis, frame);
    const sha = createHash('sha1').update(lua).digest('hex');
    const ioredis = (name: string, first: string): Buffer => Buffer.from(new Command(name, [first, ...args]).toWritable(socket));
    expect(written).toEqual([ioredis('eval', lua), ioredis('evalsha', sha)]);
  });

  it('writes a bulk string in parts, numbers as String(n) writes them, as it writes the whole string', () => {
    // Every count of digits at its edges: Math.log10 rounds 10^15 - 1 up to 15.
    const edges = Array.from({ length: 16 }, (_, d) => [10 ** d - 1, 10 ** d]).flat();
    const numbers = [0, -0, 7, -12, 99, 100, 1234567, ...edges, 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 53, 1e21, 0.5, -1.5e-7, 123.456, 1 / 3];
    const cases: (string | number)[][] = [
      ...numbers.map((n) => ['s,', n, ',', n, ',', n]),
      ['w:{acme:', 'x'.repeat(120), '}'],
      ['é'.repeat(4), 12],
      ['漢字', '🙂', 'ключ'],
      [''],
      [],
    ];
    for (const parts of cases) {
      const whole = new RespWriter(16);
      whole.string(parts.map(String).join(''));
      const inParts = new RespWriter(16);
      inParts.begin(1);
      for (const p of parts) {
        if (typeof p === 'number') inParts.number(p);
        else inParts.text(p);
      }
      inParts.end();
      expect(inParts.view().toString(), JSON.stringify(parts)).toBe(whole.view().toString());
      expect(inParts.count).toBe(1);
    }
  });

  it('writes an entity key with the characters of the key layout escaped, where reads find it', async () => {
    const keyPrefix = `${runPrefix}escaped:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    const entities = [
      { scope: 'a:b', id: '{u}:1%' },
      { scope: 'a', id: 'b:u}' },
      { scope: 'acme', id: 'u1' },
    ];
    try {
      const updates: SeriesUpdate[] = [{ kind: 'sum', series: 'n', bucket: 1, delta: 2.5, floor: 0 }];
      expect(await store.apply(entities.map((entity, i) => ({ entity, updates, once: { id: `e${i}`, ttlMs: 60_000 } })))).toEqual([true, true, true]);
      for (const entity of entities) expect(await store.read(entity, [{ kind: 'sum', series: 'n', floor: 0 }])).toEqual([2.5]);
      expect(await admin.exists(`${keyPrefix}{a%3ab:%7bu%7d%3a1%25}`, `${keyPrefix}{a:b%3au%7d}`, `${keyPrefix}{acme:u1}`)).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('applies and reads an entity and a series named in other scripts than Latin, and applies again after SCRIPT FLUSH', async () => {
    const keyPrefix = `${runPrefix}frame:`;
    const store = createRedisWindowStore({ url, keyPrefix });
    const entity = { scope: 'acme', id: '漢字漢字-ключ-🙂' };
    const apply = (id: string) => store.apply([{ entity, updates: [{ kind: 'sum', series: 'счёт:1', bucket: 1, delta: 1, floor: 0 }], once: { id, ttlMs: 60_000 } }]);
    try {
      expect(await apply('e1')).toEqual([true]);
      expect(await admin.exists(`${keyPrefix}{acme:${entity.id}}`)).toBe(1);
      // NOSCRIPT: the call is sent again with the script itself.
      await admin.script('FLUSH');
      expect(await apply('e2')).toEqual([true]);
      expect(await apply('e2')).toEqual([false]);
      expect(await store.read(entity, [{ kind: 'sum', series: 'счёт:1', floor: 0 }])).toEqual([2]);
    } finally {
      await store.close();
    }
  });
});
