import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type avro from 'avsc';
import { CodecError } from './types.js';
import type { AvroFormat } from './avro-format.js';
import { avroOptions } from './json-text.js';
import { plainRecord, type TopicSchema } from './topic-schema.js';
import { readWire } from './wire.js';
import type { KafkaNames } from '../bus/names.js';

/**
 * Only "no such schema" (404) is the message's fault. The client reports network failures as
 * status 400 too (mappersmith), so no other status can tell a bad message from an outage.
 */
function isUnknownSchema(err: unknown): boolean {
  return (err as { status?: unknown } | null)?.status === 404;
}

/**
 * Avro through a Confluent-compatible schema registry. A topic's schema is registered once per
 * process under `<topic>-value`, the topic's name on Kafka (with its namespace: names.ts) (BACKWARD compatibility, the client's default). Reading resolves
 * the writer's schema (by the message's id) against the local one, so messages written with an
 * older compatible schema decode into the current shape.
 * Registry outages surface as ordinary (retriable) errors; only messages that can never decode
 * become CodecError.
 */
export function registryAvro(url: string, names: KafkaNames): AvroFormat {
  const registry = new SchemaRegistry({ host: url }, { [SchemaType.AVRO]: avroOptions() });
  const ids = new Map<string, Promise<number>>();

  function schemaId(topic: string, text: string): Promise<number> {
    let id = ids.get(topic);
    if (!id) {
      id = registry.register({ type: SchemaType.AVRO, schema: text }, { subject: `${names.topic(topic)}-value` }).then((r) => r.id);
      // A failed registration is tried again by the next message, not remembered.
      void id.catch(() => ids.delete(topic));
      ids.set(topic, id);
    }
    return id;
  }

  /**
   * Per topic and writer's schema id, the function that reads a message's body: the writer's schema
   * is fetched and resolved against the local one once, not per message (the client's decode
   * compared the two schemas on every call and made a resolver whenever they differ; issue 31).
   * Only a reader that could be made is kept: after a failure (an outage, an unknown id, schemas
   * that do not resolve) the next message of that id asks again, as every message did before.
   */
  const readers = new Map<string, Map<number, Promise<(body: Buffer) => unknown>>>();

  async function newReader(topic: string, schema: TopicSchema | undefined, id: number): Promise<(body: Buffer) => unknown> {
    let writer: avro.Type;
    try {
      writer = (await registry.getSchema(id)) as unknown as avro.Type;
    } catch (err) {
      if (isUnknownSchema(err)) throw new CodecError(`Avro message on topic ${topic}: schema id ${id} unknown to the registry (${(err as Error).message})`);
      throw err;
    }
    const failed = (err: unknown) => new CodecError(`Avro message on topic ${topic} (schema id ${id}) does not decode${schema ? ' into the local schema' : ''}: ${(err as Error).message}`);
    // Without a local schema the writer's reads; schemas avsc finds equal still differ in options
    // (logical types), so the local type reads then.
    const reader = schema?.type ?? writer;
    let resolver: avro.Resolver | undefined;
    try {
      if (!reader.equals(writer)) resolver = reader.createResolver(writer);
    } catch (err) {
      throw failed(err);
    }
    const shape = schema ? schema.fromAvro : plainRecord;
    return (body) => {
      let record: unknown;
      try {
        record = reader.fromBuffer(body, resolver);
      } catch (err) {
        throw failed(err);
      }
      return shape(record);
    };
  }

  function readerOf(topic: string, schema: TopicSchema | undefined, id: number): Promise<(body: Buffer) => unknown> {
    let byId = readers.get(topic);
    if (!byId) readers.set(topic, (byId = new Map()));
    let read = byId.get(id);
    if (!read) {
      read = newReader(topic, schema, id);
      void read.catch(() => byId.delete(id));
      byId.set(id, read);
    }
    return read;
  }

  return {
    async encode(schema, value) {
      return registry.encode(await schemaId(schema.topic, schema.text), value);
    },
    async decode(topic, schema, bytes) {
      const { schemaId: id, body } = readWire(bytes);
      return (await readerOf(topic, schema, id))(body);
    },
  };
}
