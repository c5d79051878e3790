import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Failures of infrastructure, not of a record: a connection refused or reset, a timeout, a broker
 * or server saying "try again", a store or log that stopped. The batch is retried whole and
 * uncommitted until they pass (an outage must not dead-letter the traffic it delays).
 */
const TRANSIENT_SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOSPC', 'EIO', 'EMFILE']);
const TRANSIENT_CLICKHOUSE_TYPES = new Set([
  'TIMEOUT_EXCEEDED',
  'SOCKET_TIMEOUT',
  'NETWORK_ERROR',
  'TOO_MANY_SIMULTANEOUS_QUERIES',
  'MEMORY_LIMIT_EXCEEDED',
  'TOO_MANY_PARTS',
  'TABLE_IS_READ_ONLY',
  'ALL_CONNECTION_TRIES_FAILED',
  'UNKNOWN_TABLE', // created by a migration another process is still running
]);
const TRANSIENT_NAMES = new Set(['MaxRetriesPerRequestError', 'KafkaJSConnectionError', 'KafkaJSRequestTimeoutError', 'AbortError']);
const TRANSIENT_MESSAGES = /Connection is closed|window store stopped|damaged and stopped|is closed|written by another process|Cluster isn't ready|Too many Cluster redirections|CLUSTERDOWN/;

export function isTransient(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const x = e as Error & { code?: unknown; type?: unknown; retriable?: unknown };
    if (x.retriable === true) return true;
    if (typeof x.code === 'string' && TRANSIENT_SYSTEM_CODES.has(x.code)) return true;
    if (typeof x.type === 'string' && TRANSIENT_CLICKHOUSE_TYPES.has(x.type)) return true;
    if (TRANSIENT_NAMES.has(x.name) || TRANSIENT_MESSAGES.test(x.message)) return true;
  }
  return false;
}

export interface IsolateOptions {
  /** Attempts of one group of records before it is split (a single record: dead-lettered). */
  attempts: number;
  /** Wait before the second attempt, doubled before each later one. */
  backoffMs: number;
}

export interface Failed<R> {
  record: R;
  reason: string;
}

const describe = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/**
 * Runs `handle` over `records`, keeping one bad record from blocking the rest: a group that fails
 * `attempts` times is split in two halves handled in order, down to the single record that fails
 * alone, which is answered with the reason (for the dead-letter topic). A transient failure
 * (`isTransient`) is thrown at once: the whole batch is then retried by the consumer, uncommitted.
 * `handle` must be idempotent, as for any redelivery: a half may be handled again.
 */
export async function handleIsolating<R>(records: R[], handle: (records: R[]) => Promise<void>, opts: IsolateOptions): Promise<Failed<R>[]> {
  let last: unknown;
  for (let attempt = 1; attempt <= opts.attempts; attempt++) {
    try {
      await handle(records);
      return [];
    } catch (err) {
      if (isTransient(err)) throw err;
      last = err;
      if (attempt < opts.attempts) await sleep(opts.backoffMs * 2 ** (attempt - 1));
    }
  }
  if (records.length === 1) return [{ record: records[0]!, reason: `handler failed ${opts.attempts} times: ${describe(last)}` }];
  const mid = records.length >> 1;
  const first = await handleIsolating(records.slice(0, mid), handle, opts);
  return [...first, ...(await handleIsolating(records.slice(mid), handle, opts))];
}
