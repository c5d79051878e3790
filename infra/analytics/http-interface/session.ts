import { Session } from 'chdb';
import { BACKGROUND_NICE } from '../chdb.js';
import { badArguments, ClickHouseHttpError, fromEngine } from './errors.js';
import type { QueryRequest } from './request.js';
import { outputSettingsOf } from './settings.js';

export interface Limits {
  maxExecutionSeconds: number;
  maxResultRows: number;
  maxResultBytes: number;
}

export interface QueryOutput {
  bytes: Uint8Array;
  rowsRead: number;
  bytesRead: number;
  elapsedSeconds: number;
}

const literal = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const identifier = (s: string): string => `\`${s.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;

/** One analyst's query fails with MEMORY_LIMIT_EXCEEDED before it can take the process's memory. */
const MAX_MEMORY_BYTES = 2 * 1024 ** 3;

/** A limit the client may lower for its query, never raise; 0 (ClickHouse's "unlimited") is the cap. */
const lowered = (asked: string | undefined, cap: number): number => {
  const v = Number(asked);
  return Number.isFinite(v) && v > 0 && v < cap ? v : cap;
};

/**
 * The statements that open a query's session. The client's settings are first checked against the
 * allowlist (any other is a 400 naming it, before the engine runs anything); then a server's
 * defaults, the allowed output settings, the limits and query parameters in one SET, then
 * `readonly = 1`, which is ClickHouse's own guard: it forbids any later SET, so it must come last
 * in the preamble, and it is the first thing the client's own statement meets. From there the
 * engine refuses every write, DDL, table function that reaches outside (file, url) and every
 * further change of a setting, including `readonly` itself and a SETTINGS clause, with its READONLY error.
 */
export function sessionPreamble(req: QueryRequest, limits: Limits, defaultDatabase: string): string {
  const own = [
    `max_execution_time = ${lowered(req.settings.get('max_execution_time'), limits.maxExecutionSeconds)}`,
    `max_result_rows = ${lowered(req.settings.get('max_result_rows'), limits.maxResultRows)}`,
    `max_result_bytes = ${lowered(req.settings.get('max_result_bytes'), limits.maxResultBytes)}`,
    `max_memory_usage = ${lowered(req.settings.get('max_memory_usage'), MAX_MEMORY_BYTES)}`,
    `result_overflow_mode = 'throw'`,
    `os_thread_priority = ${BACKGROUND_NICE}`,
    ...[...req.params].map(([name, value]) => `param_${name} = ${literal(value)}`),
  ];
  // A server's default that chDB, built as a library, leaves off: 64-bit integers as JSON strings.
  const output = new Map([['output_format_json_quote_64bit_integers', '1'], ...outputSettingsOf(req.settings)]);
  const asked = [...output].map(([name, value]) => `${name} = ${literal(value)}`);
  return [
    `SET ${[...asked, ...own].join(', ')}`,
    'SET readonly = 1',
    `USE ${identifier(req.database ?? defaultDatabase)}`,
  ].join('; ');
}

/**
 * Runs one query in a session of its own on the process's chDB data directory. chDB binds one
 * directory per process, and every session on it shares the same engine and data; the settings of
 * a session are its own, so `readonly` set here never reaches the sessions that write.
 */
export async function runInSession(path: string, preamble: string, sql: string, format: string): Promise<QueryOutput> {
  const session = new Session(path);
  try {
    // The preamble holds only the client's settings and values beside the server's own: its failure is a bad setting value.
    await session.queryAsync(preamble).catch((err: unknown) => {
      throw badArguments(`A setting of the URL has a value the engine refuses: ${fromEngine(err, preamble).text}`);
    });
    const result = await session.queryAsync(sql, { format });
    return { bytes: result.bytes(), rowsRead: result.rowsRead, bytesRead: result.bytesRead, elapsedSeconds: result.elapsed };
  } catch (err) {
    throw err instanceof ClickHouseHttpError ? err : fromEngine(err, sql);
  } finally {
    session.close();
  }
}
