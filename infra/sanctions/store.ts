import type { Logger } from 'pino';
import { EMPTY_VERSION, type Snapshot } from '../../domain/screening/snapshot.js';
import { loadSnapshot, type LoadOptions } from './loader.js';
import { ListParseError } from './sources/types.js';

export type LoadState =
  | { status: 'loading' }
  | { status: 'ready'; snapshot: Snapshot }
  /** The first load failed: there is nothing to screen against, and screens must say so. */
  | { status: 'failed'; error: string };

/**
 * What a failed load says to API callers (`last_error`, the 503): a malformed file by its place
 * under the lists folder (`ofac/sdn.csv:3: ...`), anything else generically. The error itself, with
 * its paths and system codes, goes to the log only.
 */
function publicReason(err: unknown): string {
  return err instanceof ListParseError ? err.message : 'the list files could not be read (the server log has the details)';
}

/**
 * Holds the snapshot in service. A reload builds a complete new snapshot beside the old one and
 * swaps the reference in one assignment, so screens never see a half-loaded list and never pause;
 * a failed reload leaves the previous snapshot in service.
 */
export class SnapshotStore {
  private state: LoadState = { status: 'loading' };
  private reloading: Promise<boolean> | undefined;
  lastError: string | null = null;

  constructor(
    private readonly dir: string,
    private readonly log: Logger,
    private readonly opts: Omit<LoadOptions, 'onProgress'> = {},
  ) {}

  get current(): LoadState {
    return this.state;
  }

  /** Resolves true when a new snapshot went into service. Concurrent calls share one load. */
  reload(): Promise<boolean> {
    this.reloading ??= this.load().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private async load(): Promise<boolean> {
    const started = performance.now();
    try {
      const snapshot = await loadSnapshot(this.dir, {
        ...this.opts,
        onProgress: (p) => this.log.info({ ...p, dir: this.dir }, p.phase === 'absent' ? 'sanctions list absent' : p.phase === 'list' ? 'sanctions list parsed' : 'sanctions index built'),
      });
      const previous = this.state.status === 'ready' ? this.state.snapshot.version : null;
      this.state = { status: 'ready', snapshot };
      this.lastError = null;
      const heapMb = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
      if (snapshot.version === EMPTY_VERSION) this.log.warn({ dir: this.dir }, 'no sanctions list files found: every screen answers CLEAR with list_version "empty"');
      this.log.info({ version: snapshot.version, previous, lists: snapshot.lists, ms: Math.round(performance.now() - started), heapMb }, 'sanctions snapshot in service');
      return true;
    } catch (err) {
      this.lastError = publicReason(err);
      if (this.state.status !== 'ready') this.state = { status: 'failed', error: this.lastError };
      this.log.error({ err, dir: this.dir, kept: this.state.status === 'ready' ? this.state.snapshot.version : null }, 'sanctions lists failed to load; previous snapshot stays in service');
      return false;
    }
  }
}
