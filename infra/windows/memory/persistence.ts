import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { syncDir } from '../../fs/atomic-file.js';
import { tryLock, type WriterLock } from '../../fs/writer-lock.js';
import type { ApplyRequest, EntityRef } from '../types.js';
import { Journal } from './journal.js';
import type { WindowState } from './state.js';

/**
 * Durability of the in-process store: a snapshot plus journals of the operations since.
 *
 * Every state-changing call is journaled with the instant it ran at and resolves only after its
 * line is fsync'ed, so whatever a caller saw resolve survives a kill -9; replaying the journals
 * in order over the snapshot rebuilds the state, once-claims included. Compaction (every
 * interval when anything changed, and at once when the journal outgrows the snapshot) rotates to a
 * new journal generation and serializes the state in the same synchronous step, writes the
 * snapshot (temp file, fsync, rename) naming that generation, then deletes older journals.
 * Files: `<snapshot>` and `<snapshot>.<generation>.journal`, guarded by `<snapshot>.lock`.
 */

export type JournalRecord = { at: number } & (
  | { op: 'apply'; requests: ApplyRequest[] }
  | { op: 'reserveIds'; scope: string; ids: string[]; ttlMs: number }
  | { op: 'unreserveIds'; scope: string; ids: string[] }
  | { op: 'claim'; scope: string; namespace: string; ids: string[]; ttlMs: number }
  | { op: 'release'; scope: string; namespace: string; ids: string[] }
  | { op: 'schedule'; scope: string; queue: string; entries: { id: string; dueAt: number }[] }
  | { op: 'takeDue'; scope: string; queue: string; now: number; limit: number }
  | { op: 'deleteEntity'; entity: EntityRef }
);

/** Runs one operation on the state: the single path for live calls and for replay. */
export function execute(state: WindowState, r: JournalRecord): unknown {
  switch (r.op) {
    case 'apply':
      return state.apply(r.requests, r.at);
    case 'reserveIds':
      return state.reserveIds(r.scope, r.ids, r.ttlMs, r.at);
    case 'unreserveIds':
      return state.unreserveIds(r.scope, r.ids);
    case 'claim':
      return state.claim(r.scope, r.namespace, r.ids, r.ttlMs, r.at);
    case 'release':
      return state.release(r.scope, r.namespace, r.ids);
    case 'schedule':
      return state.schedule(r.scope, r.queue, r.entries);
    case 'takeDue':
      return state.takeDue(r.scope, r.queue, r.now, r.limit);
    case 'deleteEntity':
      return state.deleteEntity(r.entity);
  }
}

interface SnapshotHeader {
  v: 1;
  /** Journals of this generation and later hold what the snapshot lacks. */
  generation: number;
}

export class Persistence {
  private journal: Journal;
  /** Journal bytes written since the last snapshot, and the size that snapshot had. */
  private journalBytes = 0;
  private snapshotBytes = 0;
  private compacting: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly file: string,
    private readonly state: WindowState,
    private readonly lock: WriterLock,
    private generation: number,
    intervalMs: number,
  ) {
    this.journal = new Journal(journalFile(file, generation), Promise.resolve());
    this.timer = setInterval(() => {
      if (this.journalBytes > 0) this.compactInBackground();
    }, intervalMs);
    this.timer.unref();
  }

  /** Loads the snapshot, replays the journals, and compacts them into a fresh snapshot. */
  static async open(file: string, state: WindowState, intervalMs: number): Promise<Persistence> {
    await mkdir(path.dirname(file), { recursive: true });
    const locked = await tryLock(`${file}.lock`);
    if (!locked.held) throw new Error(`window state ${file} is in use by process ${locked.ownerPid}`);
    const from = await loadSnapshot(file, state);
    const journals = (await listJournals(file)).filter((j) => j.generation >= from);
    for (const j of journals) {
      if (!(await replay(j.file, state))) break;
    }
    const last = journals.at(-1)?.generation ?? from;
    const p = new Persistence(file, state, locked.lock, last, intervalMs);
    await p.compact();
    return p;
  }

  /**
   * Journals one operation. A journal grown past the snapshot (and past 64 MiB) is compacted at
   * once, so a restart never replays much more than it loads.
   */
  record(r: JournalRecord): Promise<void> {
    const line = JSON.stringify(r);
    const wasDue = this.compactionDue();
    this.journalBytes += line.length + 1;
    if (!wasDue && this.compactionDue()) this.compactInBackground();
    return this.journal.append(line);
  }

  private compactionDue(): boolean {
    return this.journalBytes > Math.max(COMPACT_AT_BYTES, this.snapshotBytes);
  }

  private compactInBackground(): void {
    this.compact().catch((err) => console.error('window snapshot failed; journals kept', err));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.compact();
    await this.journal.close();
    await this.lock.release();
  }

  /** One compaction at a time; a call waits for the one running and then runs its own. */
  compact(): Promise<void> {
    this.compacting = this.compacting.catch(() => undefined).then(() => this.compactNow());
    return this.compacting;
  }

  private async compactNow(): Promise<void> {
    this.state.sweep(Date.now());
    const lines = [...this.state.toLines()];
    const old = this.journal;
    const closed = old.close();
    this.generation++;
    this.journal = new Journal(journalFile(this.file, this.generation), closed);
    this.journalBytes = 0;
    this.snapshotBytes = lines.reduce((n, l) => n + l.length + 1, 0);
    await closed;
    await writeSnapshot(this.file, { v: 1, generation: this.generation }, lines);
    for (const j of await listJournals(this.file)) {
      if (j.generation < this.generation) await unlink(j.file);
    }
  }
}

const COMPACT_AT_BYTES = 64 * 1024 * 1024;

const journalFile = (file: string, generation: number): string => `${file}.${generation}.journal`;

async function listJournals(file: string): Promise<{ file: string; generation: number }[]> {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  const found = [];
  for (const name of await readdir(dir)) {
    const m = name.startsWith(prefix) ? /^(\d+)\.journal$/.exec(name.slice(prefix.length)) : null;
    if (m) found.push({ file: path.join(dir, name), generation: Number(m[1]) });
  }
  return found.sort((a, b) => a.generation - b.generation);
}

function lines(file: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
}

/** Answers the generation the snapshot covers up to (0 without a snapshot). */
async function loadSnapshot(file: string, state: WindowState): Promise<number> {
  let header: SnapshotHeader | undefined;
  try {
    for await (const line of lines(file)) {
      if (header) state.loadLine(line);
      else header = JSON.parse(line) as SnapshotHeader;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  if (header?.v !== 1) throw new Error(`window snapshot ${file}: unknown format`);
  return header.generation;
}

/**
 * Replays one journal. The first line that does not parse is the torn tail of a write that never
 * finished, so no call after it resolved: replay stops there (as Kafka truncates a log at its first
 * bad record) and answers false, so later journals are not replayed either.
 */
async function replay(file: string, state: WindowState): Promise<boolean> {
  let dropped = 0;
  for await (const line of lines(file)) {
    if (dropped > 0) {
      dropped++;
      continue;
    }
    let r: JournalRecord;
    try {
      r = JSON.parse(line) as JournalRecord;
    } catch {
      dropped = 1;
      continue;
    }
    execute(state, r);
  }
  if (dropped > 1) console.warn(`window journal ${file}: dropped ${dropped} lines from the first unreadable one on`);
  return dropped === 0;
}

/** Temp file, fsync, rename, fsync of the directory: a crash leaves the old snapshot or the new one. */
async function writeSnapshot(file: string, header: SnapshotHeader, body: string[]): Promise<void> {
  const tmp = `${file}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.appendFile(`${JSON.stringify(header)}\n`);
    for (let i = 0; i < body.length; i += 1_000) await fh.appendFile(`${body.slice(i, i + 1_000).join('\n')}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  await syncDir(path.dirname(file));
}
