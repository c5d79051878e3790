import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { groupCommit } from '../../group-commit.js';
import { syncDir } from '../../fs/atomic-file.js';

/**
 * An append-only file of JSON lines. `append` resolves once its line is on disk (fdatasync);
 * concurrent appends share one write and one sync (group commit).
 */
export class Journal {
  private pending: string[] = [];
  private fh: FileHandle | undefined;
  private readonly commit = groupCommit(() => this.flush());

  /**
   * `after` settles when the previous journal is closed: this one writes nothing before that, so a
   * crash can tear only the newest line of all journals, never one that a later line depends on.
   */
  constructor(
    readonly file: string,
    private readonly after: Promise<void>,
  ) {}

  append(line: string): Promise<void> {
    this.pending.push(`${line}\n`);
    return this.commit();
  }

  /** Flushes what was appended and closes the file. */
  async close(): Promise<void> {
    await this.commit();
    await this.fh?.close();
    this.fh = undefined;
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const data = this.pending.join('');
    this.pending = [];
    if (!this.fh) {
      await this.after;
      this.fh = await open(this.file, 'a');
      await syncDir(path.dirname(this.file));
    }
    await this.fh.appendFile(data);
    await this.fh.datasync();
  }
}
