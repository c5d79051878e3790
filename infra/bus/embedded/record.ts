import { crc32 } from 'node:zlib';
import type { Headers, OutgoingMessage } from '../types.js';

/**
 * On-disk record framing of the embedded log (pure, no I/O).
 *
 *   frame = u32 bodyLength | u32 crc32(body) | body
 *   body  = u8 version | u32 offsetHigh | u32 offsetLow | f64 timestamp
 *           | i32 keyLength (-1 = null) | key | u32 valueLength | value
 *           | u16 headerCount | (u16 nameLength | name | u32 valueLength | value)*
 *
 * The CRC covers the whole body, so a frame cut short or half-written by a crash is recognised
 * and the log is cut back to the last whole frame.
 */
export interface StoredRecord extends OutgoingMessage {
  offset: number;
  timestamp: number;
}

export const FRAME_HEADER_BYTES = 8;
/** Larger lengths can only come from garbage: refuse them instead of allocating. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
const VERSION = 1;
const FIXED_BODY_BYTES = 1 + 8 + 8 + 4 + 4 + 2;
const TWO_32 = 2 ** 32;

export function encodeFrame(message: OutgoingMessage, offset: number, timestamp: number): Buffer {
  const key = message.key === null ? null : Buffer.from(message.key, 'utf8');
  const headers = Object.entries(message.headers ?? {}).map(([k, v]) => [Buffer.from(k, 'utf8'), Buffer.from(v, 'utf8')] as const);
  let bodyLength = FIXED_BODY_BYTES + (key?.length ?? 0) + message.value.length;
  for (const [k, v] of headers) {
    if (k.length > 0xffff) throw new RangeError('header name exceeds 65535 bytes');
    bodyLength += 2 + k.length + 4 + v.length;
  }
  if (bodyLength > MAX_BODY_BYTES) throw new RangeError(`message of ${bodyLength} bytes exceeds the ${MAX_BODY_BYTES}-byte limit`);

  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + bodyLength);
  let at = FRAME_HEADER_BYTES;
  at = frame.writeUInt8(VERSION, at);
  at = frame.writeUInt32BE(Math.floor(offset / TWO_32), at);
  at = frame.writeUInt32BE(offset >>> 0, at);
  at = frame.writeDoubleBE(timestamp, at);
  at = frame.writeInt32BE(key ? key.length : -1, at);
  if (key) at += key.copy(frame, at);
  at = frame.writeUInt32BE(message.value.length, at);
  at += message.value.copy(frame, at);
  at = frame.writeUInt16BE(headers.length, at);
  for (const [k, v] of headers) {
    at = frame.writeUInt16BE(k.length, at);
    at += k.copy(frame, at);
    at = frame.writeUInt32BE(v.length, at);
    at += v.copy(frame, at);
  }
  frame.writeUInt32BE(bodyLength, 0);
  frame.writeUInt32BE(crc32(frame.subarray(FRAME_HEADER_BYTES)), 4);
  return frame;
}

export type FrameCheck =
  | { status: 'ok'; end: number; offset: number }
  /** The buffer ends inside the frame: `need` bytes from `at` hold it whole. */
  | { status: 'partial'; need: number }
  | { status: 'corrupt' };

/** Checks the frame starting at `at` (length, CRC) without decoding it. */
export function checkFrame(buf: Buffer, at: number): FrameCheck {
  if (buf.length - at < FRAME_HEADER_BYTES) return { status: 'partial', need: FRAME_HEADER_BYTES };
  const bodyLength = buf.readUInt32BE(at);
  if (bodyLength < FIXED_BODY_BYTES || bodyLength > MAX_BODY_BYTES) return { status: 'corrupt' };
  const end = at + FRAME_HEADER_BYTES + bodyLength;
  if (end > buf.length) return { status: 'partial', need: FRAME_HEADER_BYTES + bodyLength };
  const body = buf.subarray(at + FRAME_HEADER_BYTES, end);
  if (crc32(body) !== buf.readUInt32BE(at + 4) || body[0] !== VERSION) return { status: 'corrupt' };
  return { status: 'ok', end, offset: body.readUInt32BE(1) * TWO_32 + body.readUInt32BE(5) };
}

/** Decodes a frame that `checkFrame` accepted. Key, value and headers are views into `buf`. */
export function decodeFrame(buf: Buffer, at: number): StoredRecord {
  let p = at + FRAME_HEADER_BYTES + 1;
  const offset = buf.readUInt32BE(p) * TWO_32 + buf.readUInt32BE(p + 4);
  p += 8;
  const timestamp = buf.readDoubleBE(p);
  p += 8;
  const keyLength = buf.readInt32BE(p);
  p += 4;
  const key = keyLength < 0 ? null : buf.toString('utf8', p, p + keyLength);
  p += Math.max(keyLength, 0);
  const valueLength = buf.readUInt32BE(p);
  p += 4;
  const value = buf.subarray(p, p + valueLength);
  p += valueLength;
  const headerCount = buf.readUInt16BE(p);
  p += 2;
  const headers: [string, string][] = [];
  for (let i = 0; i < headerCount; i++) {
    const nameLength = buf.readUInt16BE(p);
    const name = buf.toString('utf8', p + 2, p + 2 + nameLength);
    p += 2 + nameLength;
    const valLength = buf.readUInt32BE(p);
    headers.push([name, buf.toString('utf8', p + 4, p + 4 + valLength)]);
    p += 4 + valLength;
  }
  // fromEntries defines own properties, so a header named __proto__ survives as one.
  return { key, value, headers: Object.fromEntries(headers) as Headers, offset, timestamp };
}

/**
 * Writes the final offset into a frame encoded earlier and refreshes its CRC. Encoding happens when
 * a message is sent (so a bad message fails its own send); the offset is known only when the
 * group commit writes it.
 */
export function stampOffset(frame: Buffer, offset: number): void {
  frame.writeUInt32BE(Math.floor(offset / TWO_32), FRAME_HEADER_BYTES + 1);
  frame.writeUInt32BE(offset >>> 0, FRAME_HEADER_BYTES + 5);
  frame.writeUInt32BE(crc32(frame.subarray(FRAME_HEADER_BYTES)), 4);
}
