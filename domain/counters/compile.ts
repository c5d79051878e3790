import { createHash } from 'node:crypto';
import type { CounterConfig, CounterDef } from '../../schemas/http/counters.js';
import { WINDOW_UNITS } from '../windows/units.js';
import { windowSpec, type WindowSpec } from './window.js';

/** A column of the counter table: count and sum hold numbers, last_seen a timestamp. */
export interface CounterColumn {
  name: string;
  type: 'number' | 'datetime';
}

export interface CompiledCounter {
  def: CounterDef;
  /**
   * Window-store series of the counter. It names the definition's meaning (aggregate, event type,
   * filters, bucket size), so a redefined counter starts afresh instead of mixing old and new events;
   * changing only the window's length keeps the series.
   */
  series: string;
  /** null for last_seen, which has no window. */
  spec: WindowSpec | null;
  filters: [string, string][];
}

/** A configuration prepared once per version for the hot path. */
export interface CompiledConfig {
  orgId: string;
  config: CounterConfig;
  /** Every counter of the configuration, active or not, in declaration order. */
  counters: CompiledCounter[];
  /** Counters that count now (configuration enabled, counter active), by event type. */
  counting: Map<string, CompiledCounter[]>;
  declaredAttributes: Set<string>;
  /** Columns of retired counters whose last flushed values the table keeps (audit). */
  retired: CounterColumn[];
  /** How long event ids are remembered for de-duplication: the configuration's event_id_window. */
  eventIdTtlMs: number;
  flushMs: number;
}

export const columnOf = (def: Pick<CounterDef, 'name' | 'aggregate'>): CounterColumn => ({ name: def.name, type: def.aggregate === 'last_seen' ? 'datetime' : 'number' });

function seriesOf(def: CounterDef, spec: WindowSpec | null): string {
  const filters = Object.entries(def.attribute_filters).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const meaning = JSON.stringify([def.aggregate, def.event_type, filters, spec?.bucketMs ?? 0]);
  return `${def.name}:${createHash('sha1').update(meaning).digest('base64url').slice(0, 10)}`;
}

export function compileConfig(orgId: string, config: CounterConfig, retired: CounterColumn[]): CompiledConfig {
  const counters = config.counters.map((def): CompiledCounter => {
    const spec = def.aggregate === 'last_seen' || !def.window ? null : windowSpec(def.window);
    return { def, series: seriesOf(def, spec), spec, filters: Object.entries(def.attribute_filters) };
  });
  const counting = new Map<string, CompiledCounter[]>();
  if (config.enabled) {
    for (const c of counters) {
      if (!c.def.active) continue;
      const list = counting.get(c.def.event_type) ?? [];
      list.push(c);
      counting.set(c.def.event_type, list);
    }
  }
  return {
    orgId,
    config,
    counters,
    counting,
    declaredAttributes: new Set(config.attributes.map((a) => a.name)),
    retired,
    eventIdTtlMs: config.event_id_window.amount * WINDOW_UNITS[config.event_id_window.unit],
    flushMs: config.flush_interval_seconds * 1000,
  };
}

/**
 * Retired columns after replacing `before` with `after`: counters that left the configuration join
 * the list, counters that came back leave it. A new table starts with none (the old table keeps
 * its rows as they are).
 */
export function retiredAfter(before: { config: CounterConfig; retired: CounterColumn[] } | null, after: CounterConfig): CounterColumn[] {
  if (!before || before.config.table_name !== after.table_name) return [];
  const current = new Set(after.counters.map((c) => c.name));
  const out = new Map<string, CounterColumn>();
  for (const col of [...before.retired, ...before.config.counters.map(columnOf)]) if (!current.has(col.name)) out.set(col.name, col);
  return [...out.values()];
}

const unfiltered = (c: CompiledCounter): boolean => c.filters.length === 0;

/** Counters of `compiled` that the event counts towards now. */
export function matchingCounters(compiled: CompiledConfig, event: { event_type: string; attributes?: Record<string, string> }): readonly CompiledCounter[] {
  const candidates = compiled.counting.get(event.event_type);
  if (!candidates) return [];
  // Counters without attribute filters take every event of their type: the list as it is, not a copy per event.
  if (candidates.every(unfiltered)) return candidates;
  return candidates.filter((c) => c.filters.every(([k, v]) => event.attributes?.[k] === v));
}
