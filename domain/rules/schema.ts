import { counterTableName, customTableName } from '../tenant-names.js';
import { columnTypes, type TableDefinition } from './custom-table.js';
import type { SqlSources } from './sql.js';
import { TRANSACTION_FIELDS } from './transaction-fields.js';
import type { Schema } from './typed-ast.js';
import { BUCKETS, bucketMs } from './window-state.js';
import type { ValueType } from './values.js';

export interface SchemaInput {
  customFields: { name: string; fieldType: ValueType }[];
  counters: { tableName: string; counters: { name: string; type: ValueType }[] };
  tables: TableDefinition[];
}

/** What an organization's expressions may name, from its stored definitions. */
export function buildSchema(input: SchemaInput): Schema {
  const fields = new Map<string, ValueType>(Object.entries(TRANSACTION_FIELDS).map(([k, v]) => [k, v.type]));
  for (const f of input.customFields) fields.set(f.name, f.fieldType);
  return {
    fields,
    counterTable: input.counters.tableName,
    counters: new Map(input.counters.counters.map((c) => [c.name, c.type])),
    tables: new Map(
      input.tables.map((t) => [
        t.tableName,
        { columns: columnTypes(t), aggregates: new Map<string, ValueType>(windowStateOf(t)?.aggregates.map((a) => [a.name, 'number']) ?? []) },
      ]),
    ),
  };
}

export const windowStateOf = (t: TableDefinition) => (t.optimization.status === 'enabled' ? t.optimization.windowState : null);

/** Where each named source lives in ClickHouse, for the SQL back end. */
export function buildSqlSources(orgId: string, counterTable: string, tables: TableDefinition[]): SqlSources {
  return {
    orgId,
    counterTable: counterTableName(orgId, counterTable),
    tables: new Map(
      tables.map((t) => {
        const ws = windowStateOf(t);
        return [
          t.tableName,
          {
            physical: customTableName(orgId, t.tableName),
            idColumn: t.idColumn,
            final: t.tableType === 'lookup',
            entityColumn: ws?.entityColumn,
            timestampColumn: ws?.timestampColumn,
            aggregates: new Map((ws?.aggregates ?? []).map((a) => [a.name, { function: a.function, column: a.column, bucketMs: bucketMs(a.window), buckets: BUCKETS }])),
          },
        ];
      }),
    ),
  };
}
