import { createClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { Analytics } from './types.js';
import { lowerForeignThreads } from './background-threads.js';

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
 * chDB runs ClickHouse's threads inside this process, beside the event loop that answers HTTP. An
 * insert parses and writes a part on several threads at once, merges follow, and on a 2-core
 * machine those bursts took the CPU from the event loop. Analytics is background work, so its
 * threads run at nice 19: query threads through ClickHouse's own `os_thread_priority`, merges and
 * the other background pools through lowerForeignThreads. They still get every idle cycle. At 500
 * transactions/s the p99 of POST /transaction fell from about 30 to about 17 ms on the embedded
 * defaults, and from about 30 to about 20 ms on Kafka + Redis (bench/results/rules.md).
 */
export const BACKGROUND_NICE = 19;

/** An analytics client on chDB in process, bound to `database` (created when missing). */
export async function createChdbAnalytics(path: string, database: string): Promise<Analytics> {
  // chDB ships its own copy of client-common's types; the runtime contract is the same.
  const inner = createChdbConnection({ path }) as unknown as Connection;
  await inner.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` } as never);
  // A new connection starts the session afresh on `default`: the next operation of any client rebinds.
  session.current = '';
  session.databases.add(database);
  const client = createClient({ connection: bound(inner, database), clickhouse_settings: { date_time_input_format: 'best_effort', os_thread_priority: String(BACKGROUND_NICE) } });
  lowerForeignThreads(BACKGROUND_NICE);
  await client.command({ query: 'SELECT 1' }); // binds the session to this database now
  return client;
}
