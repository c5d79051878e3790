import type { Analytics } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import { RefreshingCache } from '../../infra/refreshing-cache.js';
import type { TableDefinition } from '../../domain/rules/custom-table.js';
import type { Rule, VersionedRule } from '../../domain/rules/rule.js';
import type { ValueType } from '../../domain/rules/values.js';
import { keyedSerial } from '../../infra/keyed-serial.js';
import { versionSource } from './versions.js';

export interface FieldDef {
  name: string;
  fieldType: ValueType;
}

/** One organization's definitions as one immutable snapshot. */
export interface OrgDefinitions {
  fields: FieldDef[];
  rules: VersionedRule[];
  tables: TableDefinition[];
}

export interface Definitions {
  /** The cached snapshot; re-read after a local write at once, else at most `ttlMs` stale. */
  snapshot(orgId: string): Promise<OrgDefinitions>;
  /** false when the field exists already. */
  addField(orgId: string, field: FieldDef): Promise<boolean>;
  putRule(orgId: string, rule: Rule): Promise<void>;
  /** false when no such rule. */
  deleteRule(orgId: string, ruleId: string): Promise<boolean>;
  /** false when the table exists already. `create` makes the physical table before the definition is visible. */
  addTable(orgId: string, def: TableDefinition, create: () => Promise<void>): Promise<boolean>;
  /** The deleted definition, or null when none. `drop` removes the physical table after. */
  deleteTable(orgId: string, tableName: string, drop: (def: TableDefinition) => Promise<void>): Promise<TableDefinition | null>;
}

interface Loaded {
  defs: OrgDefinitions;
  /** The rows it was built from, as text: a reload that finds the same rows keeps `defs`. */
  source: string;
}

/**
 * Definitions in ClickHouse ReplacingMergeTree tables (see migrations.ts), read with FINAL, with
 * a per-organization cache. Other processes' writes are seen after `ttlMs`: a stale snapshot is
 * served while a fresh one loads, so the transaction path never waits on a reload.
 */
export function createDefinitions(analytics: Analytics, clock: Clock, ttlMs: number): Definitions {
  const serial = keyedSerial();
  const nextVersion = versionSource(() => clock.now());

  const rows = async <T>(query: string, orgId: string, extra: Record<string, unknown> = {}): Promise<T[]> => {
    const rs = await analytics.query({ query, query_params: { org: orgId, ...extra }, format: 'JSONEachRow' });
    return rs.json<T>();
  };

  async function load(orgId: string, previous: Loaded | undefined): Promise<Loaded> {
    const [fields, rules, tables] = await Promise.all([
      rows<{ name: string; field_type: ValueType }>('SELECT name, field_type FROM rule_fields FINAL WHERE org_id = {org:String} AND deleted = 0 ORDER BY name', orgId),
      rows<{ body: string; version: string }>('SELECT body, version FROM rule_rules FINAL WHERE org_id = {org:String} AND deleted = 0 ORDER BY rule_id', orgId),
      rows<{ definition: string }>('SELECT definition FROM rule_tables FINAL WHERE org_id = {org:String} AND deleted = 0 ORDER BY table_name', orgId),
    ]);
    const source = JSON.stringify([fields, rules, tables]);
    // An unchanged reload keeps the same snapshot object, so the engine's compiled context (keyed
    // by snapshot identity) is not rebuilt every ttlMs.
    if (previous?.source === source) return previous;
    return {
      defs: {
        fields: fields.map((f) => ({ name: f.name, fieldType: f.field_type })),
        rules: rules.map((r) => ({ ...(JSON.parse(r.body) as Rule), version: Number(r.version) })),
        tables: tables.map((t) => JSON.parse(t.definition) as TableDefinition),
      },
      source,
    };
  }

  // The transaction path never waits on a reload: a stale snapshot answers while a fresh one loads.
  const cache = new RefreshingCache<Loaded>({ clock, maxAgeMs: ttlMs, whenStale: 'serve', load });
  const invalidate = (orgId: string) => cache.delete(orgId);

  const exists = async (table: string, keyColumn: string, orgId: string, key: string) =>
    Number((await rows<{ n: string | number }>(`SELECT count() AS n FROM ${table} FINAL WHERE org_id = {org:String} AND ${keyColumn} = {key:String} AND deleted = 0`, orgId, { key }))[0]!.n) > 0;

  return {
    async snapshot(orgId) {
      return (await cache.get(orgId)).defs;
    },

    addField: (orgId, field) =>
      serial(`${orgId}/fields`, async () => {
        if (await exists('rule_fields', 'name', orgId, field.name)) return false;
        await analytics.insert({ table: 'rule_fields', format: 'JSONEachRow', values: [{ org_id: orgId, name: field.name, field_type: field.fieldType, version: nextVersion(), deleted: 0 }] });
        invalidate(orgId);
        return true;
      }),

    async putRule(orgId, rule) {
      const row = { org_id: orgId, rule_id: rule.id, body: JSON.stringify(rule), version: nextVersion() };
      // History first: a decision may name this version as soon as rule_rules holds it.
      await analytics.insert({ table: 'rule_history', format: 'JSONEachRow', values: [row] });
      await analytics.insert({ table: 'rule_rules', format: 'JSONEachRow', values: [{ ...row, deleted: 0 }] });
      invalidate(orgId);
    },

    deleteRule: (orgId, ruleId) =>
      serial(`${orgId}/rules`, async () => {
        if (!(await exists('rule_rules', 'rule_id', orgId, ruleId))) return false;
        await analytics.insert({ table: 'rule_rules', format: 'JSONEachRow', values: [{ org_id: orgId, rule_id: ruleId, body: '{}', version: nextVersion(), deleted: 1 }] });
        invalidate(orgId);
        return true;
      }),

    addTable: (orgId, def, create) =>
      serial(`${orgId}/tables`, async () => {
        if (await exists('rule_tables', 'table_name', orgId, def.tableName)) return false;
        await create();
        await analytics.insert({ table: 'rule_tables', format: 'JSONEachRow', values: [{ org_id: orgId, table_name: def.tableName, definition: JSON.stringify(def), version: nextVersion(), deleted: 0 }] });
        invalidate(orgId);
        return true;
      }),

    deleteTable: (orgId, tableName, drop) =>
      serial(`${orgId}/tables`, async () => {
        const [row] = await rows<{ definition: string }>('SELECT definition FROM rule_tables FINAL WHERE org_id = {org:String} AND table_name = {key:String} AND deleted = 0', orgId, { key: tableName });
        if (!row) return null;
        const def = JSON.parse(row.definition) as TableDefinition;
        await analytics.insert({ table: 'rule_tables', format: 'JSONEachRow', values: [{ org_id: orgId, table_name: tableName, definition: '{}', version: nextVersion(), deleted: 1 }] });
        invalidate(orgId);
        await drop(def);
        return def;
      }),
  };
}
