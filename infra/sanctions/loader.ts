import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { SanctionEntity } from '../../domain/screening/entity.js';
import { buildSnapshot, type Snapshot } from '../../domain/screening/snapshot.js';
import type { ParseMessage } from './parse-lists.js';
import { SOURCES } from './sources/index.js';
import { ListParseError, type ListSource } from './sources/types.js';

export type LoadProgress =
  | { phase: 'list'; list: string; entities: number; ms: number }
  | { phase: 'absent'; list: string; folder: string }
  | { phase: 'index'; entities: number; ms: number };

export interface LoadOptions {
  sources?: ListSource[];
  onProgress?: (p: LoadProgress) => void;
  now?: () => Date;
}

// Compiled (dist/), the worker's JavaScript runs as it is; from the TypeScript sources the .mjs
// entry registers tsx first.
const PARSE_WORKER = new URL(import.meta.url.endsWith('.js') ? './parse-worker.js' : './parse-worker.mjs', import.meta.url);

/**
 * Loads every list present under `dir` (one folder per list, official formats) into a new snapshot.
 * All or nothing: a malformed file throws a ListParseError naming file and line, and the caller
 * keeps serving its previous snapshot. The files are parsed in a worker thread and the index
 * build yields every 2,000 names, so the calling thread keeps serving meanwhile.
 */
export async function loadSnapshot(dir: string, opts: LoadOptions = {}): Promise<Snapshot> {
  const now = opts.now ?? (() => new Date());
  const lists: { list: string; entities: SanctionEntity[] }[] = [];
  let pending: SanctionEntity[] = [];
  const version = await parseInWorker(dir, registeredIds(opts.sources ?? SOURCES), (m) => {
    if (m.kind === 'absent') opts.onProgress?.({ phase: 'absent', list: m.list, folder: m.folder });
    else if (m.kind === 'entities') {
      pending.push(...m.entities);
      return 'more';
    } else {
      lists.push({ list: m.list, entities: pending });
      pending = [];
      opts.onProgress?.({ phase: 'list', list: m.list, entities: m.entities, ms: m.ms });
    }
  });
  const started = performance.now();
  const snapshot = await buildSnapshot(lists, version, now().toISOString(), () => yieldToEventLoop());
  opts.onProgress?.({ phase: 'index', entities: snapshot.entities.length, ms: Math.round(performance.now() - started) });
  return snapshot;
}

/** The worker imports its parsers from `sources/index.ts`: a source must be one of those, by id. */
function registeredIds(sources: ListSource[]): string[] {
  return sources.map((s) => {
    const registered = SOURCES.find((r) => r.id === s.id);
    if (registered?.parse !== s.parse || registered.folder !== s.folder || registered.mainFile !== s.mainFile) {
      throw new Error(`list ${s.id} is not the one registered in sources/index.ts: only registered lists can be loaded`);
    }
    return s.id;
  });
}

/**
 * Runs parseLists in a worker thread; resolves with the list version once every list is through.
 * `onProgress` answers 'more' to ask for the next chunk of entities.
 */
function parseInWorker(dir: string, ids: string[], onProgress: (m: Exclude<ParseMessage, { kind: 'done' | 'failed' }>) => 'more' | void): Promise<string> {
  return new Promise((resolve, reject) => {
    // No inherited execArgv: the entry registers tsx itself, whatever started this process.
    const worker = new Worker(PARSE_WORKER, { workerData: { dir, ids }, execArgv: [] });
    worker.on('message', (m: ParseMessage) => {
      if (m.kind === 'done') resolve(m.version);
      else if (m.kind === 'failed') reject(m.parse ? new ListParseError(m.parse.file, m.parse.line, m.parse.reason) : new Error(m.message));
      else {
        try {
          if (onProgress(m) === 'more') worker.postMessage('more');
        } catch (err) {
          // A throwing progress callback fails this load, as it did before the parse moved to a worker.
          reject(err);
          void worker.terminate();
        }
      }
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`the list parser worker stopped (exit code ${code}) before finishing`)));
  });
}
