/**
 * Topic payload codec. Messages are JSON (first byte `{`) or Avro in the Confluent wire format
 * (byte 0x00, 4-byte schema id, Avro body); consumers accept both (CONTRACTS.md 1b).
 * Producers write Avro when a schema registry is configured, else JSON.
 */
export interface Codec {
  /** Encodes a value of a topic's record type (schema `schemas/avro/<topic>.avsc`). */
  encode(topic: string, value: unknown): Promise<Buffer>;
  /** Decodes either form; throws CodecError (not retriable) for bytes that are neither. */
  decode(topic: string, bytes: Buffer): Promise<unknown>;
}

export class CodecError extends Error {
  readonly retriable = false;
}
