import { createHash } from 'node:crypto';
import { Command, type Redis } from 'ioredis';

/**
 * Bulk strings of a RESP command written straight into one growing Buffer.
 *
 * Why: ioredis frames a command of strings and Buffers (the apply's event-id digests) in its buffer
 * mode, which measures every string three times with Buffer.byteLength, builds a framed copy of it
 * and copies that again: 3.7 µs and 1.5 KB per counted event (bench/results/counters-consumer.md).
 * Here a string is written once, its length taken from the write (Buffer.write answers the bytes
 * written, utf8 as ioredis sends it): the header is first sized for one byte a character and the
 * bytes moved only when a non-ASCII string's length needs more digits.
 */
export class RespWriter {
  private buf: Buffer;
  private at = 0;
  /** Bulk strings written since the last reset. */
  count = 0;

  constructor(capacity = 16 * 1024) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  get length(): number {
    return this.at;
  }

  reset(): void {
    this.at = 0;
    this.count = 0;
  }

  string(s: string): void {
    // A UTF-16 unit is at most 3 bytes of utf8 (a surrogate pair is 4 bytes for 2 units).
    this.room(3 * s.length + 16);
    const guess = headerLength(s.length);
    const start = this.at + guess;
    const n = this.buf.write(s, start);
    const header = n === s.length ? guess : headerLength(n);
    if (header !== guess) this.buf.copyWithin(this.at + header, start, start + n);
    this.header(n);
    this.at += n;
    this.crlf();
  }

  bytes(b: Buffer): void {
    this.room(b.length + 16);
    this.header(b.length);
    this.at += b.copy(this.buf, this.at);
    this.crlf();
  }

  /** The bytes written, not copied: valid until the next write or reset. */
  view(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  /** `$<n>\r\n` */
  private header(n: number): void {
    const buf = this.buf;
    buf[this.at++] = 0x24;
    this.at += headerLength(n) - 3;
    for (let i = this.at - 1; ; i--) {
      buf[i] = 0x30 + (n % 10);
      n = Math.floor(n / 10);
      if (n === 0) break;
    }
    this.crlf();
    this.count++;
  }

  private crlf(): void {
    this.buf[this.at++] = 0x0d;
    this.buf[this.at++] = 0x0a;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }
}

/** Bytes of `$<n>\r\n`. */
const headerLength = (n: number): number => 3 + (n < 10 ? 1 : Math.floor(Math.log10(n)) + 1);

/** A script call's whole RESP frame; `headLength` bytes of it name the command and the script. */
export interface Frame {
  bytes: Buffer;
  headLength: number;
}

/**
 * A Lua script sent as one prebuilt frame per call, by EVALSHA, on one Redis server: what ioredis's
 * defineCommand does, without its framing. As there, a connection's first call sends the script
 * itself (EVAL), and a NOSCRIPT answer (a restarted or flushed server) sends the call again by EVAL.
 * The command goes through `sendCommand`: the connection's command timeout and offline queue apply,
 * and it is written at once, never held for the auto-pipeline.
 */
export function framedScript(lua: string) {
  const sha = createHash('sha1').update(lua).digest('hex');
  const shaHead = Buffer.from(`$7\r\nevalsha\r\n$40\r\n${sha}\r\n`);
  const luaBytes = Buffer.from(lua);
  const evalHead = Buffer.concat([Buffer.from(`$4\r\neval\r\n$${luaBytes.length}\r\n`), luaBytes, Buffer.from('\r\n')]);
  const loaded = new WeakSet<object>();

  /** A call's EVALSHA frame; a connection that lacks the script gets the EVAL frame instead. */
  class FramedCall extends Command {
    constructor(
      private readonly frame: Frame,
      private readonly forceEval: boolean,
    ) {
      super('evalsha', [], { replyEncoding: 'utf8' });
    }

    override toWritable(socket: object): Buffer {
      const { bytes, headLength } = this.frame;
      if (!this.forceEval && loaded.has(socket)) return bytes;
      loaded.add(socket);
      return Buffer.concat([bytes.subarray(0, headLength - shaHead.length), evalHead, bytes.subarray(headLength)]);
    }
  }

  return {
    /**
     * The EVALSHA frame of a call whose arguments (numkeys, keys, then ARGV) the writers hold in
     * order: one copy of their bytes, so the writers may be reused.
     */
    frame(...parts: RespWriter[]): Frame {
      let args = 0;
      for (const p of parts) args += p.count;
      const count = Buffer.from(`*${args + 2}\r\n`);
      return { bytes: Buffer.concat([count, shaHead, ...parts.map((p) => p.view())]), headLength: count.length + shaHead.length };
    },
    async call(redis: Redis, frame: Frame): Promise<unknown> {
      try {
        return await redis.sendCommand(new FramedCall(frame, false));
      } catch (err) {
        if (!(err instanceof Error) || !err.message.includes('NOSCRIPT')) throw err;
        return redis.sendCommand(new FramedCall(frame, true));
      }
    },
  };
}
