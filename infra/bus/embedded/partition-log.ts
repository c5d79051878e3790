import { constants } from 'node:fs';
import { open, readdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { OutgoingMessage } from '../types.js';
import { syncDir } from '../../fs/atomic-file.js';
import { groupCommit } from '../../group-commit.js';
import { checkFrame, decodeFrame, encodeFrame, stampOffset, type StoredRecord } from './record.js';

/** One index entry per this many bytes: a read starts at most this far before its offset. */
const INDEX_STEP_BYTES = 64 * 1024;
const READ_CHUNK_BYTES = 1024 * 1024;
const SEGMENT_NAME = /^(\d{20})\.seg$/;

interface IndexEntry {
  offset: number;
  position: number;
}

interface Segment {
  baseOffset: number;
  file: string;
  /** Bytes of whole, valid frames (for the writer: of fsync'ed frames). */
  size: number;
  /** Offset after the last valid frame. */
  endOffset: number;
  /** Sparse offset-to-position index, complete once `scanned` has settled. */
  index: IndexEntry[];
  /** The first full scan; undefined until the segment is first needed. */
  scanned: Promise<void> | undefined;
  /** Read handle, shared by concurrent reads and closed once the last one ends after retirement. */
  handle: Promise<FileHandle> | undefined;
  users: number;
  retired: boolean;
}

const newSegment = (dir: string, baseOffset: number): Segment => ({
  baseOffset,
  file: path.join(dir, segmentName(baseOffset)),
  size: 0,
  endOffset: baseOffset,
  index: [],
  scanned: undefined,
  handle: undefined,
  users: 0,
  retired: false,
});

interface FrameAt {
  buf: Buffer;
  at: number;
  position: number;
  end: number;
  offset: number;
}

/** Index of the last item whose key is <= value in items sorted by key; -1 when none. */
function lastAtOrBelow<T>(items: T[], key: (item: T) => number, value: number): number {
  let lo = 0;
  let hi = items.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (key(items[mid]!) <= value) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

const segmentName = (baseOffset: number): string => `${String(baseOffset).padStart(20, '0')}.seg`;

/**
 * Why a walk stopped: the region ended, `visit` refused a frame, a frame runs past the region
 * (`partial`: what a write cut short leaves) or a whole frame fails its checks (`corrupt`).
 */
type WalkStop = 'end' | 'visit' | 'partial' | 'corrupt';

/**
 * Calls `visit` for each whole frame in [start, limit) of the file, reading in chunks, until the
 * region ends, a frame is torn or corrupt, or `visit` returns false (that frame not consumed).
 */
async function walkFrames(fh: FileHandle, start: number, limit: number, visit: (f: FrameAt) => boolean): Promise<{ end: number; stop: WalkStop }> {
  let pos = start;
  let want = READ_CHUNK_BYTES;
  while (pos < limit) {
    const len = Math.min(limit - pos, want);
    const { bytesRead, buffer } = await fh.read(Buffer.allocUnsafe(len), 0, len, pos);
    const buf = bytesRead < len ? buffer.subarray(0, bytesRead) : buffer;
    let at = 0;
    let need = 0;
    while (at < buf.length) {
      const c = checkFrame(buf, at);
      if (c.status === 'corrupt') return { end: pos + at, stop: 'corrupt' };
      if (c.status === 'partial') {
        need = c.need;
        break;
      }
      if (!visit({ buf, at, position: pos + at, end: c.end, offset: c.offset })) return { end: pos + at, stop: 'visit' };
      at = c.end;
    }
    if (at === 0) {
      // Not one whole frame in what was read: read that one frame whole, unless the region ends first.
      if (need <= buf.length) return { end: pos, stop: 'corrupt' };
      if (pos + need > limit) return { end: pos, stop: 'partial' };
      want = need;
      continue;
    }
    pos += at;
    want = READ_CHUNK_BYTES;
  }
  return { end: pos, stop: 'end' };
}

/**
 * Whether a whole, valid frame with offset `minOffset` or later starts anywhere in [from, limit):
 * after a frame that claims to run past the end of the file, such a frame shows the claim is a
 * damaged length, not a write cut short.
 */
async function laterFrame(fh: FileHandle, from: number, limit: number, minOffset: number): Promise<boolean> {
  if (limit <= from) return false;
  const { buffer, bytesRead } = await fh.read(Buffer.allocUnsafe(limit - from), 0, limit - from, from);
  const buf = buffer.subarray(0, bytesRead);
  for (let at = 0; at < buf.length; at++) {
    const c = checkFrame(buf, at);
    if (c.status === 'ok' && c.offset >= minOffset) return true;
  }
  return false;
}

/** What is found in a log that should not be there: a write cut short (repaired), or damage (the partition stops). */
export type LogDamage = 'torn_tail' | 'corrupt';

export interface PartitionLogOptions {
  dir: string;
  /** Only the process holding the writer lock appends, and repairs a torn tail. */
  writable: boolean;
  segmentBytes: number;
  /** Closed segments whose last append is older than this are deleted (undefined: kept forever). */
  retentionMs: number | undefined;
  log: Logger;
  /** Called after each durable append, for in-process consumers. */
  onAppend: () => void;
  /** Called once for each damage found (for a metric); the partition has already said what and where. */
  onDamage: (kind: LogDamage) => void;
}

/**
 * The writer's segment is opened with O_DSYNC: each write returns once its bytes are on disk, as a
 * write followed by fdatasync would, in one trip through libuv's thread pool and one turn of the
 * event loop instead of two. An append's answer waits for both; under load each extra turn waited
 * behind other requests' work.
 */
const APPEND_FLAGS = constants.O_RDWR | constants.O_DSYNC;

/**
 * One partition: segment files `<baseOffset>.seg` of CRC-framed records with dense offsets.
 * Appends are group-committed: all sends that arrive during one fsync share the next one.
 *
 * Damage never loses records silently. Only a torn tail, a last frame cut short by a crash in the
 * middle of its write (it was never acknowledged), is cut, by the writer at open. Any other bad
 * frame (a whole frame failing its checksum, a closed segment that ends early or short of the
 * next one's first offset, bytes that changed after they were read) stops the partition: every
 * read and append then fails with an error naming the file and position, until an operator
 * restores the file. A byte flipped in the length field of the very last frame so that it reaches
 * past the end of the file cannot be told from a torn write, and is cut as one.
 */
export class PartitionLog {
  private segments: Segment[] = [];
  private writer: FileHandle | undefined;
  private pending: Buffer[] = [];
  private closed = false;
  /** Set once damage is found: the partition serves nothing more. */
  private broken: Error | undefined;
  private readonly flushPending = groupCommit(() => this.flush());
  private readonly reload = groupCommit(() => this.load());

  private constructor(private readonly opts: PartitionLogOptions) {}

  static async open(opts: PartitionLogOptions): Promise<PartitionLog> {
    const log = new PartitionLog(opts);
    await log.load();
    if (opts.writable) {
      await log.repairTail();
      await log.enforceRetention();
    }
    return log;
  }

  /** Oldest offset still in the log (older ones were removed by retention). */
  get startOffset(): number {
    return this.segments[0]?.baseOffset ?? 0;
  }

  /** Offset the next appended record gets; records below it are readable. */
  get endOffset(): number {
    return this.segments.at(-1)?.endOffset ?? 0;
  }

  /** Resolves once the messages are fsync'ed, in order, after every message appended before them. */
  append(messages: OutgoingMessage[]): Promise<void> {
    if (!this.opts.writable) throw new Error(`log ${this.opts.dir} is written by another process`);
    if (this.closed) throw new Error(`log ${this.opts.dir} is closed`);
    if (this.broken) return Promise.reject(this.broken);
    const timestamp = Date.now();
    for (const m of messages) this.pending.push(encodeFrame(m, 0, timestamp));
    return this.flushPending();
  }

  /** Records from `from` on, about `maxBytes` of them (always at least one when there is one). */
  async read(from: number, maxBytes: number): Promise<StoredRecord[]> {
    if (this.broken) throw this.broken;
    from = Math.max(from, this.startOffset);
    for (let i = this.segmentFor(from); i < this.segments.length; i++) {
      const seg = this.segments[i]!;
      await this.scanOnce(seg);
      if (this.broken) throw this.broken;
      if (from >= seg.endOffset) {
        const next = this.segments[i + 1];
        if (next && seg.endOffset < next.baseOffset) {
          throw this.damage({ file: seg.file, position: seg.size, missing: [seg.endOffset, next.baseOffset] }, 'closed segment ends before the next one starts: records are missing');
        }
        continue;
      }
      const out: StoredRecord[] = [];
      let bytes = 0;
      const start = from;
      const walked = await this.withHandle(seg, (fh) =>
        walkFrames(fh, this.indexFloor(seg, start), seg.size, (f) => {
          if (f.offset < start) return true;
          if (out.length > 0 && bytes + (f.end - f.at) > maxBytes) return false;
          bytes += f.end - f.at;
          out.push(decodeFrame(f.buf, f.at));
          return true;
        }),
      );
      // These bytes were whole when first scanned (and fsync'ed when written here): they changed since.
      if (walked.stop === 'partial' || walked.stop === 'corrupt') throw this.damage({ file: seg.file, position: walked.end }, 'bad frame among records already read');
      return out;
    }
    return [];
  }

  /**
   * Picks up what another process appended (new bytes, new segments). The writing process knows
   * its own appends, so this only lists and scans when the log is read-only here.
   */
  async refresh(): Promise<void> {
    if (!this.opts.writable) await this.reload();
  }

  /** Lists segments; only the newest is scanned now, older ones when first read. */
  private async load(): Promise<void> {
    const bases = (await readdir(this.opts.dir).catch(() => [] as string[])).flatMap((n) => {
      const m = SEGMENT_NAME.exec(n);
      return m ? [Number(m[1])] : [];
    });
    bases.sort((a, b) => a - b);
    // The writing process deletes old segments: forget them here too.
    while (this.segments.length > 0 && this.segments[0]!.baseOffset < (bases[0] ?? Infinity)) this.retire(this.segments.shift()!);
    const known = this.segments.at(-1)?.baseOffset ?? -1;
    for (const baseOffset of bases) {
      if (baseOffset <= known) continue;
      const prev = this.segments.at(-1);
      // Until it is scanned, a closed segment is assumed to end where the next one starts.
      if (prev?.scanned) {
        await prev.scanned;
        await this.scanMore(prev, true);
      } else if (prev) prev.endOffset = baseOffset;
      this.segments.push(newSegment(this.opts.dir, baseOffset));
    }
    const last = this.segments.at(-1);
    if (last) {
      await this.scanOnce(last);
      await this.scanMore(last, false);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flushPending().catch(() => undefined);
    await this.writer?.close();
    this.writer = undefined;
    await Promise.all(this.segments.map((seg) => seg.handle?.then((fh) => fh.close()).catch(() => undefined)));
  }

  /**
   * A crash in the middle of a write leaves the last frame cut short: cut back to the last whole
   * one and append there. Anything else after the last whole frame is damage: nothing is cut and
   * the partition stops.
   */
  private async repairTail(): Promise<void> {
    const last = this.segments.at(-1);
    if (!last || this.broken) return;
    const fh = await open(last.file, APPEND_FLAGS);
    const { size } = await fh.stat();
    if (size > last.size) {
      const { stop, end } = await walkFrames(fh, last.size, size, () => true);
      if (stop !== 'partial' || end !== last.size || (await laterFrame(fh, last.size + 1, size, last.endOffset))) {
        await fh.close();
        this.damage({ file: last.file, position: last.size, bytesAfter: size - last.size }, 'bad frame before the end of the log: not a torn write, nothing cut');
        return;
      }
      this.opts.log.warn({ file: last.file, validBytes: last.size, droppedBytes: size - last.size }, 'truncating torn tail of the log');
      this.opts.onDamage('torn_tail');
      await fh.truncate(last.size);
      await fh.sync();
    }
    this.writer = fh;
  }

  /** Stops the partition: logs what is wrong and where, counts it, and answers the error every later call gets. */
  private damage(where: Record<string, unknown>, what: string): Error {
    if (this.broken) return this.broken;
    this.broken = new Error(`log partition ${this.opts.dir} is damaged and stopped: ${what} (${JSON.stringify(where)}); restore the file from a replica or backup`);
    this.opts.log.error({ dir: this.opts.dir, ...where }, `log partition damaged and stopped: ${what}`);
    this.opts.onDamage('corrupt');
    return this.broken;
  }

  private async flush(): Promise<void> {
    const frames = this.pending;
    this.pending = [];
    if (frames.length === 0) return;
    let seg = this.segments.at(-1);
    if (!seg || !this.writer || seg.size >= this.opts.segmentBytes) seg = await this.roll();
    const index: IndexEntry[] = [];
    let lastIndexed = seg.index.at(-1)?.position ?? -Infinity;
    let position = seg.size;
    let offset = seg.endOffset;
    for (const frame of frames) {
      if (position - lastIndexed >= INDEX_STEP_BYTES) {
        index.push({ offset, position });
        lastIndexed = position;
      }
      stampOffset(frame, offset++);
      position += frame.length;
    }
    const data = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    const writer = this.writer!;
    try {
      for (let written = 0; written < data.length; ) {
        written += (await writer.write(data, written, data.length - written, seg.size + written)).bytesWritten;
      }
    } catch (err) {
      // Nothing of this group was acknowledged: take it back so the next group starts clean.
      await writer.truncate(seg.size).catch(() => undefined);
      throw err;
    }
    seg.index.push(...index);
    seg.size = position;
    seg.endOffset = offset;
    this.opts.onAppend();
  }

  private async roll(): Promise<Segment> {
    const baseOffset = this.endOffset;
    await this.writer?.close();
    // Cleared first: should the open fail, the next flush tries the roll again.
    this.writer = undefined;
    this.writer = await open(path.join(this.opts.dir, segmentName(baseOffset)), APPEND_FLAGS | constants.O_CREAT | constants.O_EXCL);
    const seg = { ...newSegment(this.opts.dir, baseOffset), scanned: Promise.resolve() };
    this.segments.push(seg);
    await syncDir(this.opts.dir);
    await this.enforceRetention();
    return seg;
  }

  /** Deletes the oldest closed segments whose last append is older than the retention. */
  private async enforceRetention(): Promise<void> {
    if (this.opts.retentionMs === undefined) return;
    const cutoff = Date.now() - this.opts.retentionMs;
    while (this.segments.length > 1) {
      const oldest = this.segments[0]!;
      if ((await stat(oldest.file)).mtimeMs >= cutoff) return;
      this.segments.shift();
      await unlink(oldest.file);
      this.retire(oldest);
      this.opts.log.info({ file: oldest.file, nextOffset: this.startOffset }, 'segment deleted by retention');
    }
  }

  private retire(seg: Segment): void {
    seg.retired = true;
    if (seg.users === 0) void seg.handle?.then((fh) => fh.close()).catch(() => undefined);
  }

  /** Builds the index of a segment not read yet, once, however many readers ask at the same time. */
  private scanOnce(seg: Segment): Promise<void> {
    seg.scanned ??= (async () => {
      seg.size = 0;
      seg.endOffset = seg.baseOffset;
      await this.scanMore(seg, seg !== this.segments.at(-1));
    })();
    return seg.scanned;
  }

  /**
   * Extends a segment's index over frames past its known end. A closed segment (a later one
   * exists) was complete before the next was created, so it must scan whole to its last byte.
   */
  private async scanMore(seg: Segment, closed: boolean): Promise<void> {
    await this.withHandle(seg, async (fh) => {
      const { size: fileSize } = await fh.stat();
      if (fileSize <= seg.size) return;
      const index = seg.index;
      let lastIndexed = index.at(-1)?.position ?? -Infinity;
      let expected = seg.endOffset;
      const { end, stop } = await walkFrames(fh, seg.size, fileSize, (f) => {
        if (f.offset !== expected) return false;
        if (f.position - lastIndexed >= INDEX_STEP_BYTES) {
          index.push({ offset: f.offset, position: f.position });
          lastIndexed = f.position;
        }
        expected++;
        return true;
      });
      seg.size = end;
      seg.endOffset = expected;
      if (closed && stop !== 'end') this.damage({ file: seg.file, position: end, fileBytes: fileSize, stop }, 'bad frame in a closed segment');
    });
  }

  private segmentFor(offset: number): number {
    return Math.max(0, lastAtOrBelow(this.segments, (seg) => seg.baseOffset, offset));
  }

  /** Position of the last index entry at or before `offset`. */
  private indexFloor(seg: Segment, offset: number): number {
    const index = seg.index;
    return index[lastAtOrBelow(index, (e) => e.offset, offset)]?.position ?? 0;
  }

  /** Read handles stay open while the segment lives: reads revisit the same few segments. */
  private async withHandle<T>(seg: Segment, use: (fh: FileHandle) => Promise<T>): Promise<T> {
    if (!seg.handle) {
      seg.handle = open(seg.file, 'r');
      seg.handle.catch(() => (seg.handle = undefined));
    }
    seg.users++;
    try {
      return await use(await seg.handle);
    } finally {
      if (--seg.users === 0 && seg.retired) this.retire(seg);
    }
  }
}
