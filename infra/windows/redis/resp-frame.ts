import { createHash } from 'node:crypto';
import { Command, type Redis } from 'ioredis';

/**
 * Bulk strings of a RESP command written straight into one growing Buffer.
 *
 * Why: ioredis frames a command of strings and Buffers (the apply's event-id digests) in its buffer
 * mode, which measures every string three times with Buffer.byteLength, builds a framed copy of it
 * and copies that again: 3.7 µs and 1.5 KB per counted event (bench/results/counters-consumer.md).
 * Here a string is written once, its length taken from the write (utf8 as ioredis sends it): the
 * header is first sized for one byte a character and the bytes moved only when a non-ASCII string's
 * length needs more digits. A bulk string may also be written in parts (begin, text, number, end),
 * and an event id's digest computed in place (computed): the apply builds no string or Buffer of
 * its own for a key, an update's numbers or a digest (about 0.9 KB less allocated per counted
 * event, bench/results/counters-consumer-cpu.md).
 */
export class RespWriter {
  private buf: Buffer;
  private at = 0;
  /** Where the open bulk string's header goes, and where its bytes begin (its header's guessed length on). */
  private opened = 0;
  private body = 0;
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
    this.begin(s.length);
    this.text(s);
    this.end();
  }

  /**
   * Opens a bulk string written in parts (`text`, `number`) and closed by `end`, so a key or an
   * update's numbers are never built as a string of their own. `expected`: its likely length, for
   * the header's room (the bytes are moved once if their length needs another number of digits).
   */
  begin(expected: number): void {
    this.room(headerLength(expected));
    this.opened = this.at;
    this.body = this.at + headerLength(expected);
    this.at = this.body;
  }

  /** A part of the open bulk string, in utf8 as ioredis sends it. */
  text(s: string): void {
    // A UTF-16 unit is at most 3 bytes of utf8 (a surrogate pair is 4 bytes for 2 units).
    this.room(3 * s.length);
    this.at += s.length <= SHORT && this.ascii(s, this.at) ? s.length : this.buf.write(s, this.at);
  }

  /** A number as String(n) writes it; the digits of a safe integer go straight into the buffer. */
  number(n: number): void {
    if (!Number.isSafeInteger(n)) return this.text(String(n));
    this.room(32);
    if (n < 0) {
      this.buf[this.at++] = 0x2d;
      n = -n;
    }
    this.digits(n);
  }

  end(): void {
    // Room for a header longer than guessed, and the CRLF.
    this.room(16);
    const n = this.at - this.body;
    const start = this.opened + headerLength(n);
    if (start !== this.body) this.buf.copyWithin(start, this.body, this.at);
    this.at = this.opened;
    this.header(n);
    this.at += n;
    this.crlf();
  }

  /**
   * A bulk string of `n` bytes that `write(value, buf, at)` puts in place at `at` (an event id's
   * digest): no Buffer of their own. A function and its value, not a closure, so a call allocates nothing.
   */
  computed<T>(n: number, write: (value: T, buf: Buffer, at: number) => void, value: T): void {
    this.room(n + 16);
    this.header(n);
    write(value, this.buf, this.at);
    this.at += n;
    this.crlf();
  }

  /** A command's header, `*<n>\r\n` for n arguments to follow, in a frame of several commands (framed-replies.ts). */
  array(n: number): void {
    this.room(24);
    this.buf[this.at++] = 0x2a;
    this.digits(n);
    this.crlf();
  }

  /** The bytes written, not copied: valid until the next write or reset. */
  view(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  /** Writes `s` at `at` if it is ASCII (a byte a character); answers false on the first other character. */
  private ascii(s: string, at: number): boolean {
    const buf = this.buf;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) return false;
      buf[at + i] = c;
    }
    return true;
  }

  /** `$<n>\r\n`, in room made by the caller. */
  private header(n: number): void {
    this.buf[this.at++] = 0x24;
    this.digits(n);
    this.crlf();
    this.count++;
  }

  /** A non-negative safe integer in decimal, in room made by the caller. */
  private digits(n: number): void {
    const buf = this.buf;
    const end = (this.at += digitsOf(n));
    for (let i = end - 1; ; i--) {
      buf[i] = 0x30 + (n % 10);
      n = Math.floor(n / 10);
      if (n === 0) break;
    }
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

/**
 * Strings up to this length are copied a character at a time when ASCII (keys, series names, an
 * update's numbers): Buffer.write's call into C++ costs more than the loop for them.
 */
const SHORT = 64;

/** Decimal digits of a non-negative safe integer, by exact powers of ten (Math.log10 rounds 10^15 - 1 up to 15). */
function digitsOf(n: number): number {
  let d = 1;
  for (let p = 10; p <= n; p *= 10) d++;
  return d;
}

/** Bytes of `$<n>\r\n`. */
const headerLength = (n: number): number => 3 + digitsOf(n);

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
