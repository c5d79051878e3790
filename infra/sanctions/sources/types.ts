import type { SanctionEntity } from '../../../domain/screening/entity.js';

/** A malformed list file: names the file and the line so an operator can find it. */
export class ListParseError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly reason: string,
  ) {
    super(`${file}${line !== null ? `:${line}` : ''}: ${reason}`);
  }
}

/** The files of one list, read from its folder. */
export interface SourceFiles {
  has(name: string): boolean;
  /** The file's text; throws when absent. */
  text(name: string): string;
  /** Path shown in errors, relative to SANCTIONS_DATA_DIR. */
  label(name: string): string;
}

export interface Download {
  /** File name inside the list's folder. */
  file: string;
  url: string;
}

/**
 * One sanctions list (watchman's `pkg/sources/<list>`): where its files live, how they parse into
 * the entity model and where the publisher offers them. Adding a list is a folder plus one line
 * in `sources/index.ts`.
 */
export interface ListSource {
  id: string;
  /** Folder under SANCTIONS_DATA_DIR. */
  folder: string;
  /** The list is present when its folder holds this file. */
  mainFile: string;
  parse(files: SourceFiles): SanctionEntity[];
  downloads: Download[];
}
