import { Transform, type TransformCallback } from 'node:stream';

/** More bytes than the limit went through the gate. */
export class MediaTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the media is larger than the limit of ${maxBytes} bytes`);
  }
}

/**
 * A pass-through for media on its way to storage that holds back the first `headBytes` (or all,
 * if fewer) until `check` has judged them, then lets everything through, counting: past
 * `maxBytes` it fails with MediaTooLargeError. So the type is known from the content before a
 * byte is stored, the size is enforced while streaming, and memory holds one head at the most.
 * `check` throws to refuse the content (its error fails the stream).
 */
export function mediaGate<T>(opts: { headBytes: number; maxBytes: number; check: (head: Buffer) => Promise<T> }) {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let seen = 0;
  let verdict: T | undefined;
  let judged = false;

  async function judge(this: Transform): Promise<void> {
    const head = Buffer.concat(held);
    verdict = await opts.check(head);
    judged = true;
    held = [];
    this.push(head);
  }

  const gate = new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      seen += chunk.length;
      if (seen > opts.maxBytes) return done(new MediaTooLargeError(opts.maxBytes));
      if (judged) return done(null, chunk);
      held.push(chunk);
      heldBytes += chunk.length;
      if (heldBytes < opts.headBytes) return done();
      judge.call(this).then(() => done(), done);
    },
    flush(done: TransformCallback) {
      if (judged) return done();
      judge.call(this).then(() => done(), done);
    },
  });
  return {
    stream: gate,
    /** What `check` answered; defined once the head has passed. */
    verdict: () => verdict,
    /** Bytes that went through so far. */
    bytes: () => seen,
  };
}
