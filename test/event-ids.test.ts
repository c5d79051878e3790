import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { idDigest, writeIdDigest } from '../infra/windows/event-ids.js';
import { ONE_BLOCK_CHARS, sha256Head12 } from '../infra/windows/sha256-head.js';

/** The digest as stored before ids were hashed in JavaScript: the stores must still find those ids. */
const stored = (id: string): Buffer => createHash('sha256').update(id).digest().subarray(0, 12);

describe('event id digests', () => {
  // Every length around the one-block limit, ids as producers send them, and strings the fallback serves.
  const ascii = Array.from({ length: ONE_BLOCK_CHARS + 10 }, (_, n) => Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((n * 7 + i * 13) % 95))).join(''));
  const ids = [
    ...ascii,
    'ev-1',
    'e1',
    '\0',
    '\x7f'.repeat(ONE_BLOCK_CHARS),
    '6f1c2a3e-9b8d-4c7e-a1f0-123456789abc',
    ...Array.from({ length: 200 }, () => randomBytes(1 + (randomBytes(1)[0]! % 60)).toString('base64').slice(0, ONE_BLOCK_CHARS)),
    'é',
    'ev-é',
    '漢字-ключ-🙂',
    '\ud800',
    'x'.repeat(1000),
  ];

  it('are the first 12 bytes of SHA-256 of the id, for short ASCII ids and every other string', () => {
    for (const id of ids) expect(idDigest(id).toString('hex'), JSON.stringify(id)).toBe(stored(id).toString('hex'));
  });

  it('are written in place at an offset, leaving the bytes around them', () => {
    const out = Buffer.alloc(40, 0xee);
    for (const id of ['ev-42', 'ключ', 'y'.repeat(80)]) {
      out.fill(0xee);
      writeIdDigest(id, out, 7);
      expect(out.subarray(7, 19)).toEqual(stored(id));
      expect([...out.subarray(0, 7), ...out.subarray(19)].every((b) => b === 0xee)).toBe(true);
    }
  });

  it('are hashed in JavaScript only for ASCII of one block, and left to node:crypto otherwise', () => {
    const out = Buffer.alloc(12);
    expect(sha256Head12('a'.repeat(ONE_BLOCK_CHARS), out, 0)).toBe(true);
    expect(sha256Head12('a'.repeat(ONE_BLOCK_CHARS + 1), out, 0)).toBe(false);
    expect(sha256Head12('aé', out, 0)).toBe(false);
  });
});
