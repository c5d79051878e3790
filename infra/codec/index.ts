import { CodecError, type Codec } from './types.js';
import type { AvroFormat } from './avro-format.js';
import { loadTopicSchemas } from './load-schemas.js';
import { localAvro } from './local-avro.js';
import { registryAvro } from './registry-avro.js';
import { MAGIC_BYTE } from './wire.js';
import { kafkaNames } from '../bus/names.js';

export { CodecError, type Codec } from './types.js';

export interface CodecOptions {
  /** Confluent-compatible registry: producers then write Avro, registered under `<topic>-value`. */
  schemaRegistryUrl?: string;
  /** The deployment's KAFKA_NAMESPACE: subjects are named after the topics as Kafka knows them. */
  namespace?: string;
  /** Folder of `<topic>.avsc` files (default: schemas/avro of this checkout). */
  schemasDir?: string;
  /**
   * Write Avro without a registry (schema id 0, see local-avro.ts): lets tests prove that a
   * consumer accepts Avro messages where no registry runs.
   */
  localAvro?: boolean;
}

const OPEN_BRACE = 0x7b;

function encodeJson(topic: string, value: unknown): Buffer {
  const text = JSON.stringify(value) as string | undefined;
  // Readers recognise JSON by its first byte `{` (CONTRACTS.md 1b), so only objects can be sent.
  if (text === undefined || !text.startsWith('{')) throw new CodecError(`message of topic ${topic} must be an object`);
  return Buffer.from(text, 'utf8');
}

function decodeJson(topic: string, bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new CodecError(`message of topic ${topic} starts with '{' but is not JSON: ${(err as Error).message}`);
  }
}

/**
 * Topic payload codec (CONTRACTS.md 1b). Producers write Avro in the Confluent wire format when a
 * schema registry is configured, else JSON; readers take both. A topic with a schema in schemasDir
 * is checked on every encode, whatever the encoding, so a producer's misfit fails in embedded runs
 * as it would against a registry; topics without one are JSON only.
 */
export function createCodec(opts: CodecOptions = {}): Codec {
  const schemas = loadTopicSchemas(opts.schemasDir);
  const avro: AvroFormat = opts.schemaRegistryUrl ? registryAvro(opts.schemaRegistryUrl, kafkaNames(opts.namespace)) : localAvro;
  const writeAvro = Boolean(opts.schemaRegistryUrl) || opts.localAvro === true;

  return {
    async encode(topic, value) {
      const schema = schemas.get(topic);
      if (!schema) return encodeJson(topic, value);
      const avroValue = schema.toAvro(value);
      return writeAvro ? avro.encode(schema, avroValue) : encodeJson(topic, value);
    },
    async decode(topic, bytes) {
      if (bytes.length === 0) throw new CodecError(`empty message on topic ${topic}`);
      if (bytes[0] === OPEN_BRACE) return decodeJson(topic, bytes);
      if (bytes[0] === MAGIC_BYTE) return avro.decode(topic, schemas.get(topic), bytes);
      throw new CodecError(`message on topic ${topic} is neither JSON (first byte '{') nor Confluent Avro (first byte 0x00): first byte 0x${bytes[0]!.toString(16).padStart(2, '0')}`);
    },
  };
}
