import { CodecError } from './types.js';

/** Confluent wire format: magic byte 0, the schema id as a 4-byte big-endian integer, the Avro body. */
export const MAGIC_BYTE = 0x00;
const HEADER_BYTES = 5;

export function writeWire(schemaId: number, body: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(MAGIC_BYTE, 0);
  header.writeInt32BE(schemaId, 1);
  return Buffer.concat([header, body]);
}

export function readWire(bytes: Buffer): { schemaId: number; body: Buffer } {
  if (bytes.length < HEADER_BYTES || bytes[0] !== MAGIC_BYTE) throw new CodecError('not a Confluent wire-format message (magic byte 0 and a 4-byte schema id)');
  return { schemaId: bytes.readInt32BE(1), body: bytes.subarray(HEADER_BYTES) };
}
