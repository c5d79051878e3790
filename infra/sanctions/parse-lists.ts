import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SanctionEntity } from '../../domain/screening/entity.js';
import { EMPTY_VERSION } from '../../domain/screening/snapshot.js';
import { SOURCES } from './sources/index.js';
import { ListParseError, type ListSource, type SourceFiles } from './sources/types.js';

/**
 * Entities per message. The receiving thread deserialises a message in one piece, and every
 * message already queued in one go, so the parser sends the next chunk only once asked.
 */
const CHUNK = 1_000;

/** What the parsing side reports, in order: per list `absent` or `entities`... then `parsed`; finally `done` or `failed`. */
export type ParseMessage =
  | { kind: 'absent'; list: string; folder: string }
  | { kind: 'entities'; list: string; entities: SanctionEntity[] }
  | { kind: 'parsed'; list: string; entities: number; ms: number }
  | { kind: 'done'; version: string }
  | { kind: 'failed'; message: string; parse: { file: string; line: number | null; reason: string } | null };

interface ReadFile {
  label: string;
  bytes: Buffer;
  mtimeMs: number;
}

/** Reads a list's files lazily, remembering what was read for the snapshot's content hash. */
function sourceFiles(dir: string, source: ListSource, read: ReadFile[]): SourceFiles {
  const full = (name: string) => path.join(dir, source.folder, name);
  const label = (name: string) => path.posix.join(source.folder, name);
  return {
    has: (name) => existsSync(full(name)),
    label,
    text: (name) => {
      const bytes = readFileSync(full(name));
      read.push({ label: label(name), bytes, mtimeMs: statSync(full(name)).mtimeMs });
      return bytes.toString('utf8');
    },
  };
}

/**
 * Parses the registered lists `ids` under `dir` (one folder per list, official formats) and
 * reports each step through `post`, waiting for `more()` after each chunk of entities. CPU-bound:
 * it runs in a worker thread so the thread serving screens never waits for a large file.
 */
export async function parseLists(dir: string, ids: string[], post: (m: ParseMessage) => void, more: () => Promise<void>): Promise<void> {
  const read: ReadFile[] = [];
  try {
    for (const id of ids) {
      const source = SOURCES.find((s) => s.id === id);
      if (!source) throw new Error(`unknown list ${id}`);
      if (!existsSync(path.join(dir, source.folder, source.mainFile))) {
        post({ kind: 'absent', list: id, folder: source.folder });
        continue;
      }
      const started = performance.now();
      const entities = source.parse(sourceFiles(dir, source, read));
      const ms = Math.round(performance.now() - started);
      for (let i = 0; i < entities.length; i += CHUNK) {
        post({ kind: 'entities', list: id, entities: entities.slice(i, i + CHUNK) });
        await more();
      }
      post({ kind: 'parsed', list: id, entities: entities.length, ms });
    }
    post({ kind: 'done', version: snapshotVersion(read) });
  } catch (err) {
    // Error classes do not survive structured clone: a parse error travels as its parts.
    post({
      kind: 'failed',
      message: err instanceof Error ? err.message : String(err),
      parse: err instanceof ListParseError ? { file: err.file, line: err.line, reason: err.reason } : null,
    });
  }
}

/** `<date of the newest file>-<8 hex of a hash over every file's path and bytes>`, or `empty`. */
export function snapshotVersion(files: ReadFile[]): string {
  if (files.length === 0) return EMPTY_VERSION;
  const hash = createHash('sha256');
  for (const f of [...files].sort((a, b) => a.label.localeCompare(b.label))) hash.update(f.label).update('\0').update(f.bytes);
  const date = new Date(Math.max(...files.map((f) => f.mtimeMs))).toISOString().slice(0, 10);
  return `${date}-${hash.digest('hex').slice(0, 8)}`;
}
