import { CodecError } from './types.js';
import type { AvroFormat } from './avro-format.js';
import { readWire, writeWire } from './wire.js';

/** The schema id written without a registry; registries start numbering at 1, so it never names a real schema. */
export const LOCAL_SCHEMA_ID = 0;

/**
 * Avro without a schema registry: nothing can resolve a schema id, so the writer's schema is taken
 * to be the local `schemas/avro/<topic>.avsc` whatever id the message carries. Right when producers
 * share this checkout's schemas; a message written with another version of the schema needs the
 * registry (SCHEMA_REGISTRY_URL), which resolves it against the local one.
 */
export const localAvro: AvroFormat = {
  async encode(schema, value) {
    return writeWire(LOCAL_SCHEMA_ID, schema.type.toBuffer(value));
  },
  async decode(topic, schema, bytes) {
    const { schemaId, body } = readWire(bytes);
    if (!schema) throw new CodecError(`Avro message (schema id ${schemaId}) on topic ${topic}, which has no local schema, and no schema registry is configured`);
    let record: unknown;
    try {
      record = schema.type.fromBuffer(body);
    } catch (err) {
      throw new CodecError(`Avro message on topic ${topic} does not decode with the local schema: ${(err as Error).message}`);
    }
    return schema.fromAvro(record);
  },
};
