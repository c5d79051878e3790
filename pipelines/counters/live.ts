import type { WindowStore } from '../../infra/windows/types.js';
import type { CounterReader } from '../ports.js';
import { columnOf } from '../../domain/counters/compile.js';
import { liveReads, liveValues, type CounterValue } from '../../domain/counters/live-values.js';
import type { ConfigStore } from './config-store.js';
import type { CounterTable } from './counter-table.js';

/**
 * Live counter values, read from the window store as of `now`. The realtime endpoint shows the
 * organization's counters (active and inactive); the rule engine's reader adds retired columns with
 * the values the table keeps for them.
 */
export function createLiveValues(deps: { windows: WindowStore; configs: ConfigStore; table: CounterTable; now: () => number }) {
  async function values(orgId: string, entityId: string, now = deps.now()): Promise<Record<string, CounterValue>> {
    const compiled = await deps.configs.get(orgId);
    if (!compiled) return {};
    return liveValues(compiled, await deps.windows.read({ scope: orgId, id: entityId }, liveReads(compiled, now)));
  }

  const reader: CounterReader = {
    async describe(orgId) {
      const compiled = await deps.configs.get(orgId);
      if (!compiled) return { tableName: 'entity_counters', counters: [] };
      return { tableName: compiled.config.table_name, counters: [...compiled.counters.map((c) => columnOf(c.def)), ...compiled.retired] };
    },
    async values(orgId, entityId) {
      const compiled = await deps.configs.get(orgId);
      if (!compiled) return {};
      const retired = compiled.retired.length > 0 ? (await deps.table.read(compiled.config.table_name, orgId, [entityId], compiled.retired)).get(entityId) : undefined;
      const blank = Object.fromEntries(compiled.retired.map((c) => [c.name, null]));
      return { ...blank, ...retired, ...(await values(orgId, entityId)) };
    },
  };

  return { values, reader };
}

export type LiveValues = ReturnType<typeof createLiveValues>;
