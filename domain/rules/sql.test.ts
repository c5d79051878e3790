import { describe, expect, it } from 'vitest';
import { testSchema } from '../../test/fixtures/rules-schema.js';
import { checkExpression } from './check.js';
import { customTableName } from '../tenant-names.js';
import { quoteIdent, toClickHouse, type SqlSources } from './sql.js';

const sources: SqlSources = {
  orgId: "org'; DROP TABLE x; --",
  counterTable: 'entity_counters',
  tables: new Map([
    ['accounts', { physical: customTableName('org', 'accounts'), idColumn: 'id', final: true, aggregates: new Map() }],
    [
      'payments',
      {
        physical: customTableName('org', 'payments'),
        idColumn: 'id',
        final: false,
        entityColumn: 'account',
        timestampColumn: 'at',
        aggregates: new Map([
          ['count_1h', { function: 'count' as const, bucketMs: 60_000, buckets: 60 }],
          ['value_1d', { function: 'sum' as const, column: 'value', bucketMs: 1_440_000, buckets: 60 }],
        ]),
      },
    ],
  ]),
};

describe('ClickHouse SQL compiler', () => {
  it('keeps every user value out of the SQL text: literals, transaction values and the org are parameters', () => {
    const evil = "x' OR 1=1 --";
    const expr = checkExpression(`currency = '${evil.replaceAll("'", "''")}' AND entity_counters.txn_count_1h > 3 AND accounts.tier IN ('gold')`, testSchema);
    const q = toClickHouse(expr, testSchema, sources, { entity_id: "e'1", currency: evil }, 0);
    expect(q.sql).not.toContain(evil);
    expect(q.sql).not.toContain("e'1");
    expect(q.sql).not.toContain('DROP');
    expect(Object.values(q.params)).toEqual(expect.arrayContaining([evil, "e'1", sources.orgId, 'gold', 3]));
    expect(q.sql).toMatch(/\{tx_currency:Nullable\(String\)\} AS `currency`/);
    expect(q.sql).toMatch(/FROM `entity_counters` FINAL WHERE `org_id` = \{p\d+:String\}/);
    expect(q.sql).toContain(`FROM \`${customTableName('org', 'accounts')}\` FINAL WHERE \`id\` = {tx_entity_id:Nullable(String)}`);
    expect(q.sql).toContain('SETTINGS join_use_nulls = 1');
  });

  it('reads aggregates from the event table with the window store buckets, without FINAL on a MergeTree', () => {
    const q = toClickHouse(checkExpression('payments.count_1h > 1 AND payments.value_1d > 0', testSchema), testSchema, sources, { entity_id: 'e1' }, 3_600_000);
    expect(q.sql).toContain(`FROM \`${customTableName('org', 'payments')}\` WHERE \`account\` = {tx_entity_id:Nullable(String)} GROUP BY \`account\``);
    expect(q.sql).toMatch(/countIf\(intDiv\(toUnixTimestamp64Milli\(`at`\), \{p\d+:Float64\}\) >= \{p\d+:Float64\}\)/);
    expect(q.sql).not.toMatch(/payments\S* FINAL/);
    // now = 60 minutes: the 1-hour window's lowest bucket is 60 - 59 = 1.
    expect(Object.values(q.params)).toEqual(expect.arrayContaining([60_000, 1]));
  });

  it('quotes identifiers with backticks, escaping backticks and backslashes', () => {
    expect(quoteIdent('amount')).toBe('`amount`');
    expect(quoteIdent('a`b\\c')).toBe('`a\\`b\\\\c`');
  });
});
