import { randomUUID } from 'node:crypto';
import type { Analytics, Migration } from '../../infra/analytics/types.js';
import type { WindowStore } from '../../infra/windows/types.js';
import { counterConfigSchema, type CounterConfigBody } from '../../schemas/http/counters.js';
import { columnOf, compileConfig, retiredAfter, type CompiledConfig, type CounterColumn } from '../../domain/counters/compile.js';
import { QUOTA_VARIABLES, QuotaExceededError } from '../../domain/quotas.js';
import type { CounterTable } from './counter-table.js';

/**
 * Counter configurations, durable in ClickHouse as an append-only history (one row per version,
 * kept for audit), with an in-process cache for the hot paths (intake and the pipeline).
 *
 * Optimistic concurrency: a PUT reads the newest version from ClickHouse, compares it with the
 * version sent, and writes version + 1. Within a process a per-organization mutex orders writers;
 * across processes the writer first claims `v<n+1>` in the window store (Redis when configured), an
 * atomic compare-and-set, and holds that claim as a lease while it inserts. Another process that
 * raced for the same version fails the claim and answers 409. The lease lasts 60 s, far longer
 * than one insert, and expires so that a writer that died between claim and insert does not block
 * the organization for good.
 */

export const configMigration: Migration = {
  id: 'counters-001-configs',
  statements: [
    `CREATE TABLE IF NOT EXISTS counter_configs (
      org_id String,
      version UInt64,
      config String,
      retired String,
      written_by String,
      created_at DateTime64(3, 'UTC')
    ) ENGINE = MergeTree ORDER BY (org_id, version)`,
  ],
};

const LEASE_MS = 60_000;

export class VersionConflictError extends Error {
  constructor(readonly currentVersion: number | null) {
    super(currentVersion === null ? 'no counter configuration exists yet: omit version' : `version is stale or missing: the current version is ${currentVersion}; read it, apply your change and PUT again`);
  }
}

interface Row {
  org_id: string;
  version: string | number;
  config: string;
  retired: string;
}

export function createConfigStore(deps: { analytics: Analytics; windows: WindowStore; table: CounterTable; maxColumns: number }) {
  const cache = new Map<string, CompiledConfig | null>();
  const locks = new Map<string, Promise<unknown>>();
  const listeners = new Set<(c: CompiledConfig) => void>();

  const compileRow = (r: Row): CompiledConfig =>
    compileConfig(r.org_id, counterConfigSchema.parse({ ...JSON.parse(r.config), version: Number(r.version) }), JSON.parse(r.retired) as CounterColumn[]);

  const remember = (c: CompiledConfig) => {
    cache.set(c.orgId, c);
    for (const l of listeners) l(c);
  };

  async function readLatest(orgId: string): Promise<CompiledConfig | null> {
    const rs = await deps.analytics.query({
      // A lost race can leave two rows of one version; the earliest insert is the one that won.
      query: 'SELECT org_id, version, config, retired FROM counter_configs WHERE org_id = {org:String} ORDER BY version DESC, created_at ASC, written_by ASC LIMIT 1',
      query_params: { org: orgId },
      format: 'JSONEachRow',
    });
    const [row] = await rs.json<Row>();
    return row ? compileRow(row) : null;
  }

  /** Runs `fn` after every earlier call for the organization has settled. */
  function exclusive<T>(orgId: string, fn: () => Promise<T>): Promise<T> {
    const prev = locks.get(orgId) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const settled = next.catch(() => undefined);
    locks.set(orgId, settled);
    void settled.then(() => locks.get(orgId) === settled && locks.delete(orgId));
    return next;
  }

  return {
    /** The cached configuration (hot paths); loaded from ClickHouse on first use. */
    async get(orgId: string): Promise<CompiledConfig | null> {
      if (cache.has(orgId)) return cache.get(orgId)!;
      const c = await readLatest(orgId);
      if (c) remember(c);
      else cache.set(orgId, null);
      return c;
    },

    /** The newest configuration as ClickHouse holds it (GET answers read-your-writes across processes). */
    async current(orgId: string): Promise<CompiledConfig | null> {
      const c = await readLatest(orgId);
      if (c) remember(c);
      return c;
    },

    /** Replaces the configuration whole; throws VersionConflictError or ColumnConflictError. */
    save(orgId: string, body: CounterConfigBody): Promise<CompiledConfig> {
      return exclusive(orgId, async () => {
        const before = await readLatest(orgId);
        const sent = body.version ?? 0;
        if (before ? sent !== before.config.version : sent !== 0) throw new VersionConflictError(before?.config.version ?? null);
        const version = (before?.config.version ?? 0) + 1;
        const { version: _sent, ...fields } = body;
        const config = counterConfigSchema.parse({ ...fields, version });
        const retired = retiredAfter(before, config);
        // Columns first: the pipeline may flush the new counters as soon as the row below is visible.
        const columns = [...config.counters.map(columnOf), ...retired];
        if (columns.length > deps.maxColumns) {
          throw new QuotaExceededError(deps.maxColumns, `columns in its counter table, retired counters included (this configuration would make ${columns.length})`, QUOTA_VARIABLES.columns);
        }
        await deps.table.ensure(orgId, config.table_name, columns);
        const lease = `v${version}`;
        const [won] = await deps.windows.claim(orgId, 'counter-config', [lease], LEASE_MS);
        if (!won) throw new VersionConflictError((await readLatest(orgId))?.config.version ?? before?.config.version ?? null);
        try {
          await deps.analytics.insert({
            table: 'counter_configs',
            format: 'JSONEachRow',
            values: [{ org_id: orgId, version, config: JSON.stringify(fields), retired: JSON.stringify(retired), written_by: randomUUID(), created_at: new Date().toISOString() }],
          });
        } catch (err) {
          await deps.windows.release(orgId, 'counter-config', [lease]).catch(() => undefined);
          throw err;
        }
        const compiled = compileConfig(orgId, config, retired);
        remember(compiled);
        return compiled;
      });
    },

    /** Every configuration, newest version per organization (start-up and periodic reload). */
    async reloadAll(): Promise<void> {
      const rs = await deps.analytics.query({
        query: 'SELECT org_id, version, config, retired FROM counter_configs ORDER BY org_id, version DESC, created_at ASC, written_by ASC LIMIT 1 BY org_id',
        format: 'JSONEachRow',
      });
      for (const row of await rs.json<Row>()) {
        if (cache.get(row.org_id)?.config.version !== Number(row.version)) remember(compileRow(row));
      }
    },

    /** Configurations known to this process. */
    known(): CompiledConfig[] {
      return [...cache.values()].filter((c): c is CompiledConfig => c !== null);
    },

    /** Called with each configuration this process learns of (new version or first load). */
    onChange(listener: (c: CompiledConfig) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type ConfigStore = ReturnType<typeof createConfigStore>;
