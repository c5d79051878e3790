import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { createCodec, CodecError } from '../infra/codec/index.js';
import { requireAddress, shouldRun } from './support/infra.js';
import { codecSamples } from './codec-samples.js';

/** Against a real Confluent-compatible registry (infra/scripts/schema-registry.sh starts Apicurio). */
describe.skipIf(!shouldRun('schemaRegistryUrl'))('codec with a schema registry', () => {
  const url = () => requireAddress('schemaRegistryUrl');

  async function getJson(rel: string): Promise<unknown> {
    const res = await fetch(`${url()}${rel}`);
    expect(res.status).toBe(200);
    return res.json();
  }

  it.each(Object.entries(codecSamples))('writes %s as registered Avro that a fresh reader decodes like JSON', async (topic, sample) => {
    const bytes = await createCodec({ schemaRegistryUrl: url() }).encode(topic, sample);
    expect(bytes[0]).toBe(0x00);
    const id = bytes.readInt32BE(1);
    // The id in the message is the one the registry holds for the subject `<topic>-value`.
    const latest = (await getJson(`/subjects/${encodeURIComponent(`${topic}-value`)}/versions/latest`)) as { id: number };
    expect(latest.id).toBe(id);

    const fresh = createCodec({ schemaRegistryUrl: url() });
    const fromJson = await fresh.decode(topic, await createCodec().encode(topic, sample));
    expect(await fresh.decode(topic, bytes)).toEqual(fromJson);
    expect(fromJson).toEqual(sample);
    // A reader without a registry takes the local schema as the writer's, which it is here.
    expect(await createCodec().decode(topic, bytes)).toEqual(sample);
  });

  it('registers under the topic as Kafka names it in a KAFKA_NAMESPACE', async () => {
    const [topic, sample] = Object.entries(codecSamples)[0]!;
    const namespace = `ns${randomUUID().slice(0, 8)}`;
    const bytes = await createCodec({ schemaRegistryUrl: url(), namespace }).encode(topic, sample);
    const latest = (await getJson(`/subjects/${encodeURIComponent(`${namespace}.${topic}-value`)}/versions/latest`)) as { id: number };
    expect(latest.id).toBe(bytes.readInt32BE(1));
    expect(await createCodec({ schemaRegistryUrl: url() }).decode(topic, bytes)).toEqual(sample);
  });

  it('gives concurrent first messages of a topic one schema id and adds no subject version for them', async () => {
    await createCodec({ schemaRegistryUrl: url() }).encode('events', codecSamples.events);
    const before = (await getJson('/subjects/events-value/versions')) as number[];
    const codec = createCodec({ schemaRegistryUrl: url() });
    const ids = await Promise.all([1, 2, 3].map(async () => (await codec.encode('events', codecSamples.events)).readInt32BE(1)));
    expect(new Set(ids).size).toBe(1);
    expect(await getJson('/subjects/events-value/versions')).toEqual(before);
  });

  it('refuses a message whose schema id the registry does not know, as a CodecError', async () => {
    const codec = createCodec({ schemaRegistryUrl: url() });
    const bytes = await createCodec({ localAvro: true }).encode('events', codecSamples.events);
    bytes.writeInt32BE(987_654, 1);
    const err = await codec.decode('events', bytes).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CodecError);
    expect((err as Error).message).toMatch(/schema id 987654 unknown to the registry/);
  });

  it('asks the registry again for a writer schema it failed to serve: a reader keeps schemas, not outages', async () => {
    const bytes = await createCodec({ schemaRegistryUrl: url() }).encode('events', codecSamples.events);
    // The registry behind a door that is shut at first.
    let shut = true;
    const door = createServer((req, res) => {
      if (shut) return void res.writeHead(503).end();
      void fetch(`${url()}${req.url}`, { headers: { accept: req.headers.accept ?? '*/*' } }).then(async (r) => {
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await r.arrayBuffer()));
      });
    });
    await new Promise<void>((resolve) => door.listen(0, '127.0.0.1', resolve));
    try {
      const codec = createCodec({ schemaRegistryUrl: `http://127.0.0.1:${(door.address() as AddressInfo).port}` });
      const err = await codec.decode('events', bytes).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(CodecError);
      shut = false;
      expect(await codec.decode('events', bytes)).toEqual(codecSamples.events);
    } finally {
      door.close();
    }
  });

  it('refuses a value that does not fit before registering anything', async () => {
    const err = await createCodec({ schemaRegistryUrl: url() })
      .encode('transactions', { ...codecSamples.transactions, amount: 'lots' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CodecError);
    expect((err as Error).message).toMatch(/amount: "lots" does not fit "double"/);
  });

  it('reads messages written with an older compatible schema into the current shape', async () => {
    // A topic of its own, so that its subject starts empty on a registry other tests share.
    const topic = `evolving-${randomUUID()}`;
    const v1 = { type: 'record', name: 'Evolving', namespace: 'io.weir.test', fields: [{ name: 'org_id', type: 'string' }, { name: 'old_note', type: 'string' }] };
    const v2 = { ...v1, fields: [v1.fields[0], { name: 'score', type: ['null', 'double'], default: null }] };
    const dir = mkdtempSync(path.join(tmpdir(), 'weir-codec-'));
    writeFileSync(path.join(dir, `${topic}.avsc`), JSON.stringify(v2));

    const producerOfV1 = new SchemaRegistry({ host: url() });
    const { id } = await producerOfV1.register({ type: SchemaType.AVRO, schema: JSON.stringify(v1) }, { subject: `${topic}-value` });
    const old = await producerOfV1.encode(id, { org_id: 'org-1', old_note: 'dropped by the reader' });

    const reader = createCodec({ schemaRegistryUrl: url(), schemasDir: dir });
    expect(await reader.decode(topic, old)).toEqual({ org_id: 'org-1' });
    // The current schema registers as a later version of the same subject and round-trips.
    const now = await reader.encode(topic, { org_id: 'org-2', score: 0.5 });
    expect(now.readInt32BE(1)).not.toBe(id);
    expect(await reader.decode(topic, now)).toEqual({ org_id: 'org-2', score: 0.5 });
  });
});
