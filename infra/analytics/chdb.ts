import { createClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { Analytics } from './types.js';

type Connection = NonNullable<ClickHouseClientConfigOptions['connection']>;

/**
 * chDB runs one engine session per process: `USE` in one client switches every client of the
 * process. The client's `database` option is ignored by chDB, so a client is bound with `USE`.
 * While only one database is open (a deployment), that one `USE` is all; once a process opens
 * clients on several databases (tests running several Weir processes in one), each operation
 * takes its turn and switches to its client's database first.
 */
const session = { current: '', databases: new Set<string>(), turn: Promise.resolve() as Promise<unknown> };

function bound(inner: Connection, database: string): Connection {
  const run = <T>(op: () => Promise<T>): Promise<T> => {
    if (session.databases.size <= 1 && session.current === database) return op();
    const next = session.turn.then(async () => {
      if (session.current !== database) {
        await inner.command({ query: `USE ${database}` } as never);
        session.current = database;
      }
      return op();
    });
    session.turn = next.catch(() => undefined);
    return next;
  };
  const wrapped: Connection = {
    ping: (params) => inner.ping(params),
    close: () => inner.close(),
    query: (params) => run(() => inner.query(params)),
    exec: (params) => run(() => inner.exec(params)),
    command: (params) => run(() => inner.command(params)),
    insert: (params) => run(() => inner.insert(params)),
  };
  return wrapped;
}

/**
 * chDB runs ClickHouse's query threads inside this process, beside the event loop that answers HTTP.
 * An insert parses and writes a part on several threads at once, and on a 2-core machine that burst
 * took the CPU from the event loop: with the query threads at nice 19 (ClickHouse's own
 * `os_thread_priority`), the p99 of POST /transaction at 500/s fell from about 30 to about 17 ms
 * (bench/results/rules.md). Analytics writes are background work; requests come first.
 */
const QUERY_THREAD_NICE = '19';

/** An analytics client on chDB in process, bound to `database` (created when missing). */
export async function createChdbAnalytics(path: string, database: string): Promise<Analytics> {
  // chDB ships its own copy of client-common's types; the runtime contract is the same.
  const inner = createChdbConnection({ path }) as unknown as Connection;
  await inner.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` } as never);
  // A new connection starts the session afresh on `default`: the next operation of any client rebinds.
  session.current = '';
  session.databases.add(database);
  const client = createClient({ connection: bound(inner, database), clickhouse_settings: { date_time_input_format: 'best_effort', os_thread_priority: QUERY_THREAD_NICE } });
  await client.command({ query: 'SELECT 1' }); // binds the session to this database now
  return client;
}
