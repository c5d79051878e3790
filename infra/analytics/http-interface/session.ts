import { Session } from 'chdb';
import { BACKGROUND_NICE } from '../chdb.js';
import { fromEngine } from './errors.js';
import type { QueryRequest } from './request.js';

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
 * The statements that open a query's session: a server's defaults, the client's settings, then the limits and query
 * parameters, then `readonly = 1`, which is ClickHouse's own guard. From there the engine refuses
 * every write, DDL, table function that reaches outside (file, url) and every further change of
 * a setting, including `readonly` itself and a SETTINGS clause, with its READONLY error.
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
  const asked = [...req.settings].map(([name, value]) => `${name} = ${literal(value)}`);
  return [
    // A server's default that chDB, built as a library, leaves off: 64-bit integers as JSON strings.
    'SET output_format_json_quote_64bit_integers = 1',
    ...(asked.length > 0 ? [`SET ${asked.join(', ')}`] : []),
    `SET ${own.join(', ')}`,
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
    await session.queryAsync(preamble);
    const result = await session.queryAsync(sql, { format });
    return { bytes: result.bytes(), rowsRead: result.rowsRead, bytesRead: result.bytesRead, elapsedSeconds: result.elapsed };
  } catch (err) {
    throw fromEngine(err);
  } finally {
    session.close();
  }
}
