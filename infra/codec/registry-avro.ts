import { SchemaRegistry, SchemaType, type DecodeOptions } from '@kafkajs/confluent-schema-registry';
import { CodecError } from './types.js';
import type { AvroFormat } from './avro-format.js';
import { avroOptions } from './json-text.js';
import { plainRecord } from './topic-schema.js';
import { readWire } from './wire.js';
import type { KafkaNames } from '../bus/names.js';

/** avsc's Type is the reader schema the client wants; its declared type is narrower. */
type ReaderSchema = NonNullable<NonNullable<DecodeOptions[SchemaType.AVRO]>['readerSchema']>;

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

  return {
    async encode(schema, value) {
      return registry.encode(await schemaId(schema.topic, schema.text), value);
    },
    async decode(topic, schema, bytes) {
      const { schemaId: id } = readWire(bytes);
      try {
        await registry.getSchema(id);
      } catch (err) {
        if (isUnknownSchema(err)) throw new CodecError(`Avro message on topic ${topic}: schema id ${id} unknown to the registry (${(err as Error).message})`);
        throw err;
      }
      let record: unknown;
      try {
        // The writer's schema is cached now: decoding does no I/O, so every failure is the message's.
        record = await registry.decode(bytes, schema ? { [SchemaType.AVRO]: { readerSchema: schema.type as unknown as ReaderSchema } } : undefined);
      } catch (err) {
        throw new CodecError(`Avro message on topic ${topic} (schema id ${id}) does not decode${schema ? ' into the local schema' : ''}: ${(err as Error).message}`);
      }
      return schema ? schema.fromAvro(record) : plainRecord(record);
    },
  };
}
