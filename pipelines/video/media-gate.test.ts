import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { MediaTooLargeError, mediaGate } from './media-gate.js';

/** Pushes `chunks` through a gate; answers what came out, the heads judged and the error, if any. */
async function through(chunks: Buffer[], headBytes: number, maxBytes: number, refuse = false) {
  const heads: Buffer[] = [];
  const gate = mediaGate({
    headBytes,
    maxBytes,
    check: async (head) => {
      heads.push(head);
      if (refuse) throw new Error('not media');
      return `type of ${head.length} bytes`;
    },
  });
  const out: Buffer[] = [];
  const sink = new Writable({ write: (c: Buffer, _e, done) => void (out.push(c), done()) });
  const error = await pipeline(Readable.from(chunks), gate.stream, sink).then(() => undefined, (err: unknown) => err);
  return { out: Buffer.concat(out), heads, error, verdict: gate.verdict(), bytes: gate.bytes() };
}

const bytes = (n: number, from = 0) => Buffer.from(Array.from({ length: n }, (_, i) => (from + i) % 251));

describe('mediaGate', () => {
  it('judges the head once, then lets every byte through in order', async () => {
    const chunks = [bytes(3), bytes(4, 3), bytes(5, 7), bytes(6, 12)];
    const r = await through(chunks, 6, 100);
    expect(r.error).toBeUndefined();
    expect(r.heads).toEqual([bytes(7)]);
    expect(r.out.equals(bytes(18))).toBe(true);
    expect(r.verdict).toBe('type of 7 bytes');
    expect(r.bytes).toBe(18);
  });

  it('judges a body shorter than the head at its end', async () => {
    const r = await through([bytes(2), bytes(2, 2)], 10, 100);
    expect(r.heads).toEqual([bytes(4)]);
    expect(r.out.equals(bytes(4))).toBe(true);
  });

  it('passes nothing of a head it refuses', async () => {
    const r = await through([bytes(4), bytes(4, 4), bytes(4, 8)], 6, 100, true);
    expect((r.error as Error).message).toBe('not media');
    expect(r.out.length).toBe(0);
    expect(r.verdict).toBeUndefined();
  });

  it('fails past the limit, after passing at most the limit', async () => {
    const r = await through([bytes(4), bytes(4, 4), bytes(4, 8), bytes(4, 12)], 4, 10);
    expect(r.error).toBeInstanceOf(MediaTooLargeError);
    expect((r.error as Error).message).toBe('the media is larger than the limit of 10 bytes');
    expect(r.out.length).toBeLessThanOrEqual(10);
  });

  it('fails past the limit before judging a head the limit cuts short', async () => {
    const r = await through([bytes(8), bytes(8, 8)], 64, 10);
    expect(r.error).toBeInstanceOf(MediaTooLargeError);
    expect(r.heads).toEqual([]);
    expect(r.out.length).toBe(0);
  });
});
