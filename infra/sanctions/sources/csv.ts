import Papa from 'papaparse';
import { ListParseError } from './types.js';

/**
 * A parsed CSV file. Rows are plain field arrays (fast to build); the line of a row is worked out
 * only when a row has to be reported as malformed.
 */
export interface CsvTable {
  rows: string[][];
  /** Throws a ListParseError naming the file and the line on which row `index` ends. */
  fail(index: number, reason: string): never;
}

const lineAt = (text: string, offset: number, skippedLines: number) => {
  let line = 1 + skippedLines;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
};

/** Reads a CSV with a real parser (quoted fields hold line breaks); a syntax error names the line. */
export function readCsv(raw: string, file: string, opts: { delimiter?: string; skipLines?: number } = {}): CsvTable {
  let text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  const skipLines = opts.skipLines ?? 0;
  for (let i = 0; i < skipLines; i++) text = text.slice(text.indexOf('\n') + 1);
  const delimiter = opts.delimiter ?? ',';
  const result = Papa.parse<string[]>(text, { delimiter, skipEmptyLines: true });
  const error = result.errors[0];
  if (error) throw new ListParseError(file, error.index !== undefined ? lineAt(text, error.index, skipLines) : null, error.message);
  const rows = result.data;
  // OFAC files end with a lone Ctrl-Z (0x1A) after the last line break.
  const last = rows[rows.length - 1];
  if (last && last.length === 1 && last[0]!.trim() === '\x1a') rows.pop();
  return {
    rows,
    fail(index, reason) {
      let offset = text.length;
      let seen = 0;
      Papa.parse<string[]>(text, {
        delimiter,
        skipEmptyLines: true,
        step: (r, parser) => {
          if (seen++ === index) {
            offset = r.meta.cursor - 1;
            parser.abort();
          }
        },
      });
      throw new ListParseError(file, lineAt(text, offset, skipLines), reason);
    },
  };
}

export interface CsvRecord {
  get(column: string): string;
  fail(reason: string): never;
}

/** Rows of a CSV with a header row, read by column name; the header must name `required`. */
export function readCsvWithHeader(
  raw: string,
  file: string,
  required: string[],
  opts: { delimiter?: string; skipLines?: number } = {},
): CsvRecord[] {
  const table = readCsv(raw, file, opts);
  const header = table.rows[0];
  if (!header) throw new ListParseError(file, null, 'file is empty');
  const index = new Map(header.map((name, i) => [name.trim(), i]));
  const missing = required.filter((c) => !index.has(c));
  if (missing.length > 0) table.fail(0, `header lacks column(s) ${missing.join(', ')}`);
  const out: CsvRecord[] = [];
  for (let r = 1; r < table.rows.length; r++) {
    const fields = table.rows[r]!;
    out.push({ get: (column) => (fields[index.get(column) ?? -1] ?? '').trim(), fail: (reason) => table.fail(r, reason) });
  }
  return out;
}

/** Splits a `; `-separated list field, dropping empty parts. */
export const splitList = (value: string, sep: string | RegExp = ';'): string[] =>
  value.split(sep).map((s) => s.trim()).filter(Boolean);
