import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import avsc from 'avsc';
import { createCodec, CodecError } from '../infra/codec/index.js';
import { loadTopicSchemas } from '../infra/codec/load-schemas.js';
import { avroOptions } from '../infra/codec/json-text.js';
import { topicEventSchema } from '../schemas/http/counters.js';
import { codecSamples } from './codec-samples.js';

const json = createCodec();
const avro = createCodec({ localAvro: true });

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

async function codecError(p: Promise<unknown>): Promise<string> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(CodecError);
  return (err as CodecError).message;
}

describe('topic schemas', () => {
  it('has a schema for every topic producers publish to (CONTRACTS.md 1b), and for each sample', () => {
    const topics = [...loadTopicSchemas().keys()];
    expect(topics).toEqual(expect.arrayContaining(['events', 'transactions', 'workflow.events']));
    expect(topics.sort()).toEqual(Object.keys(codecSamples).sort());
  });

  it('refuses a schema folder with a schema that is not an Avro record', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'weir-codec-'));
    writeFileSync(path.join(dir, 'bad.avsc'), JSON.stringify({ type: 'map', values: 'string' }));
    expect(() => createCodec({ schemasDir: dir })).toThrow(/bad must be an Avro record/);
  });
});

describe.each(Object.entries(codecSamples))('topic %s', (topic, sample) => {
  it('round-trips as JSON: bytes start with {', async () => {
    const bytes = await json.encode(topic, sample);
    expect(bytes[0]).toBe(0x7b);
    expect(await json.decode(topic, bytes)).toEqual(sample);
  });

  it('round-trips as Avro in the Confluent wire format with the local schema', async () => {
    const bytes = await avro.encode(topic, sample);
    expect(bytes[0]).toBe(0x00);
    expect(bytes.readInt32BE(1)).toBe(0);
    expect(bytes.subarray(5).includes(Buffer.from('{"'))).toBe(topic === 'workflow.events' || topic === 'screenings');
    expect(await avro.decode(topic, bytes)).toEqual(sample);
  });

  it('decodes to the same value from either encoding, whichever codec reads', async () => {
    const fromJson = await avro.decode(topic, await json.encode(topic, sample));
    const fromAvro = await json.decode(topic, await avro.encode(topic, sample));
    expect(fromAvro).toEqual(fromJson);
  });

  it('refuses a value that does not fit the schema, in either encoding', async () => {
    const { org_id: _dropped, ...withoutOrg } = sample;
    for (const codec of [json, avro]) {
      expect(await codecError(codec.encode(topic, withoutOrg))).toMatch(/does not fit the .* schema: org_id: undefined/);
      expect(await codecError(codec.encode(topic, { ...sample, org_id: 42 }))).toMatch(/org_id: 42 does not fit "string"/);
    }
  });

  it('refuses bytes that are neither JSON nor Avro, naming the first byte', async () => {
    expect(await codecError(json.decode(topic, Buffer.from('hello')))).toMatch(/first byte 0x68/);
    expect(await codecError(json.decode(topic, Buffer.from([0xff, 0x00])))).toMatch(/first byte 0xff/);
    expect(await codecError(json.decode(topic, Buffer.alloc(0)))).toMatch(/empty message/);
  });

  it('refuses JSON that does not parse and Avro that does not decode', async () => {
    expect(await codecError(json.decode(topic, Buffer.from('{"org_id": ')))).toMatch(/not JSON/);
    const good = await avro.encode(topic, sample);
    expect(await codecError(avro.decode(topic, good.subarray(0, good.length - 3)))).toMatch(/does not decode with the local schema/);
    expect(await codecError(avro.decode(topic, Buffer.from([0, 0, 0])))).toMatch(/not a Confluent wire-format message/);
  });
});

describe('null and absent', () => {
  const minimal = { org_id: 'o', event_id: 'e', entity_id: 'u', event_type: 't', occurred_at: '2024-03-01T10:00:00Z' };

  it('decodes an Avro null as an absent field, as the JSON producer left it out', async () => {
    const bytes = await avro.encode('events', { ...minimal, value: null, attributes: undefined });
    expect(await avro.decode('events', bytes)).toEqual(minimal);
    expect(Object.keys((await avro.decode('events', bytes)) as object)).not.toContain('value');
  });

  it('gives values the events pipeline schema validates alike from both encodings', async () => {
    for (const value of [minimal, codecSamples.events]) {
      const a = topicEventSchema.safeParse(await avro.decode('events', await avro.encode('events', value)));
      const j = topicEventSchema.safeParse(await json.decode('events', await json.encode('events', value)));
      expect(a.success && j.success).toBe(true);
      expect(a.data).toEqual(j.data);
    }
  });
});

describe('transaction custom fields', () => {
  const base = codecSamples.transactions!;

  it('travel as top-level keys in JSON and in the custom_fields map in Avro', async () => {
    const bytes = await avro.encode('transactions', base);
    const raw = loadTopicSchemas().get('transactions')!.type.fromBuffer(bytes.subarray(5)) as { custom_fields: Record<string, unknown>; risk_tier?: unknown };
    expect(raw.custom_fields).toEqual({ risk_tier: 'high', velocity_score: 0.75, is_vip: true, opened_on: '2023-12-31' });
    expect(raw.risk_tier).toBeUndefined();
    expect(await avro.decode('transactions', bytes)).toEqual(base);
  });

  it('drops a null custom field like any other null', async () => {
    const decoded = await avro.decode('transactions', await avro.encode('transactions', { ...base, risk_tier: null }));
    expect(decoded).not.toHaveProperty('risk_tier');
    expect(decoded).toHaveProperty('is_vip', true);
  });

  it('refuses a custom field that is not a scalar, by its JSON name, and the reserved key custom_fields', async () => {
    for (const codec of [json, avro]) {
      expect(await codecError(codec.encode('transactions', { ...base, tags: ['a'] }))).toMatch(/: tags: \["a"\] does not fit/);
      expect(await codecError(codec.encode('transactions', { ...base, custom_fields: {} }))).toMatch(/key custom_fields is reserved/);
    }
  });

  it('round-trips arbitrary custom fields identically through both encodings', async () => {
    // The sample sets every declared field, so a name outside it is a custom field.
    const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/).filter((k) => k !== 'custom_fields' && !(k in base));
    // JSON has no -0, NaN or infinities; producers' zod schemas refuse them before the codec.
    const scalar = fc.oneof(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)), fc.boolean());
    await fc.assert(
      fc.asyncProperty(fc.dictionary(name, scalar, { maxKeys: 8 }), async (custom) => {
        const { risk_tier: _r, velocity_score: _v, is_vip: _i, opened_on: _o, ...fields } = base;
        const value = { ...fields, ...custom };
        const viaAvro = await json.decode('transactions', await avro.encode('transactions', value));
        const viaJson = await avro.decode('transactions', await json.encode('transactions', value));
        expect(viaAvro).toEqual(value);
        expect(viaJson).toEqual(value);
      }),
      { numRuns: 200 },
    );
  });
});

describe('JSON payload fields', () => {
  it('carry any JSON value and refuse one JSON cannot hold', async () => {
    const sample = codecSamples['workflow.events']!;
    for (const payload of [{}, [1, 'two', null], 'text', 3.5, { deep: { deeper: [{ x: true }] } }]) {
      expect(await avro.decode('workflow.events', await avro.encode('workflow.events', { ...sample, payload }))).toEqual({ ...sample, payload });
    }
    expect(await codecError(avro.encode('workflow.events', { ...sample, payload: undefined }))).toMatch(/payload: undefined does not fit/);
  });
});

describe('JSON payload fields written with another schema', () => {
  const reader = loadTopicSchemas().get('workflow.events')!.type;
  const writer = (payload: unknown) =>
    avsc.Type.forSchema(
      { type: 'record', name: 'WorkflowEvent', namespace: 'io.weir', fields: [{ name: 'payload', type: payload as avsc.Schema }, { name: 'org_id', type: 'string' }, { name: 'event', type: 'string' }] },
      avroOptions(),
    );

  it('parse the text of a writer that declared the field as plain string', () => {
    const w = writer('string');
    const read = reader.fromBuffer(w.toBuffer({ org_id: 'o', event: 'e', payload: '{"a":[1,null]}' }), reader.createResolver(w));
    expect((read as { payload: unknown }).payload).toEqual({ a: [1, null] });
  });

  it('keep the parsed value of a json writer with its fields in another order', () => {
    const w = writer({ type: 'string', logicalType: 'json' });
    const read = reader.fromBuffer(w.toBuffer({ org_id: 'o', event: 'e', payload: { b: 'x' } }), reader.createResolver(w));
    expect(read).toMatchObject({ org_id: 'o', event: 'e', payload: { b: 'x' } });
  });
});

describe('topics without a schema', () => {
  it('are JSON whatever the codec, without checks', async () => {
    const value = { anything: [1, { goes: true }] };
    const bytes = await avro.encode('events.dlq', value);
    expect(bytes.toString('utf8')).toBe(JSON.stringify(value));
    expect(await avro.decode('events.dlq', bytes)).toEqual(value);
  });

  it('refuse values that would not start with {', async () => {
    expect(await codecError(json.encode('events.dlq', [1, 2]))).toMatch(/must be an object/);
    expect(await codecError(json.encode('events.dlq', 'text'))).toMatch(/must be an object/);
  });

  it('cannot decode Avro without a registry', async () => {
    const bytes = await avro.encode('events', codecSamples.events);
    expect(await codecError(avro.decode('events.dlq', bytes))).toMatch(/no local schema, and no schema registry is configured/);
  });
});

describe('undeclared fields', () => {
  it('are refused in records that carry no extras, by name', async () => {
    expect(await codecError(json.encode('events', { ...codecSamples.events, colour: 'red' }))).toMatch(/undeclared colour/);
  });
});

describe('registry outage', () => {
  it('is an ordinary (retriable) error, not a CodecError that would dead-letter the message', async () => {
    const unreachable = createCodec({ schemaRegistryUrl: 'http://127.0.0.1:1' });
    const bytes = await avro.encode('events', codecSamples.events);
    const err = await rejection(unreachable.decode('events', bytes));
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(CodecError);
    // JSON needs no registry at all.
    expect(await unreachable.decode('events', await json.encode('events', codecSamples.events))).toEqual(codecSamples.events);
  });
});
