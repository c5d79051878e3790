import type { Platform } from '../infra/platform.js';
import type { CounterReader } from '../pipelines/ports.js';
import type { ServiceModule } from './types.js';
import { createCounterTable } from '../pipelines/counters/counter-table.js';
import { columnOf, type CounterColumn } from '../domain/counters/compile.js';
import { counterTableName } from '../domain/tenant-names.js';
import { configMigration, createConfigStore, type ConfigStore } from '../pipelines/counters/config-store.js';
import { createFlusher } from '../pipelines/counters/flusher.js';
import { createLiveValues } from '../pipelines/counters/live.js';
import { startCounterPipeline } from '../pipelines/counters/index.js';
import { EVENTS_TOPIC } from '../pipelines/counters/apply-events.js';
import { createIntake } from '../api/counters/intake.js';
import { countersRouter } from '../api/counters/routes.js';

/** How often a process re-reads configurations written by other processes (ClickHouse server only). */
const CONFIG_RELOAD_MS = 1_000;

/**
 * One configuration store per platform, shared by the service and the readers other services
 * create, so a PUT in this process is seen by intake, pipeline and rule engine at once.
 */
const stores = new WeakMap<Platform, ConfigStore>();
function configStoreOf(platform: Platform): ConfigStore {
  let s = stores.get(platform);
  if (!s) {
    s = createConfigStore({ analytics: platform.analytics, windows: platform.windows, table: createCounterTable(platform.analytics), maxColumns: platform.config.QUOTA_COLUMNS_PER_ORG });
    stores.set(platform, s);
  }
  return s;
}

const liveOf = (platform: Platform) =>
  createLiveValues({ windows: platform.windows, configs: configStoreOf(platform), table: createCounterTable(platform.analytics), now: () => platform.clock.now() });

/**
 * Event counters (Document 1 part B): configuration and intake over HTTP, the counter pipeline in the `counters` role.
 *
 * State kept per active entity in the window store (Redis hash or in-process map): per count or
 * sum counter one entry per occupied bucket (1 s buckets up to 24-hour windows, 60 s beyond, so at
 * most window / bucket entries, and never more than the events it holds) plus a running total;
 * per last_seen counter one number; and flush queue entries (one `dirty` entry, one `expiry` entry
 * per flush tick at which some of its events leave a window). Per event: its intake claim and
 * its once id, each kept for the longest window (at least 24 h) plus 1 h. bench/results/counters.md
 * has the measured bytes.
 */
export const countersService: ServiceModule = {
  name: 'counters',
  topics: [{ topic: EVENTS_TOPIC, partitions: 6 }],
  migrations: [configMigration],
  async create({ platform, keys }) {
    const configs = configStoreOf(platform);
    const table = createCounterTable(platform.analytics);
    await configs.reloadAll();
    // With chDB the process is the only writer; with a server, other API processes write too.
    const reload = platform.config.CLICKHOUSE_URL
      ? setInterval(() => configs.reloadAll().catch((err: unknown) => platform.log.warn({ err }, 'counter configuration reload failed')), CONFIG_RELOAD_MS)
      : undefined;
    reload?.unref();
    const flusher = createFlusher({ platform, configs, table });
    return {
      router: countersRouter({ platform, keys, configs, intake: createIntake({ platform, configs }), live: liveOf(platform) }),
      workers: [{ role: 'counters', name: 'counters', start: () => startCounterPipeline({ platform, configs, flusher }) }],
      async close() {
        if (reload) clearInterval(reload);
      },
    };
  },
};

/**
 * The counter table of an organization and the columns it writes there (its counters, retired ones
 * included): what a read of that table may select for it, since other organizations' counters may
 * be columns of the same table.
 */
export async function counterColumnsOf(platform: Platform, orgId: string): Promise<{ table: string; columns: CounterColumn[] } | null> {
  const c = await configStoreOf(platform).current(orgId);
  return c && { table: counterTableName(orgId, c.config.table_name), columns: [...c.counters.map((x) => columnOf(x.def)), ...c.retired] };
}

/** The CounterReader port for the rule engine: live values as of now, retired columns as last flushed. */
export function createCounterReader(platform: Platform): CounterReader {
  return liveOf(platform).reader;
}
