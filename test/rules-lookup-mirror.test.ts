import { describe, expect, it } from 'vitest';
import type { Analytics } from '../infra/analytics/types.js';
import { LookupMirror, RowBudget } from '../pipelines/rules/lookup-mirror.js';

/** A ClickHouse stand-in holding one table of rows, whose next `failures` queries fail; counts reads of one row. */
function fakeAnalytics(rows: Record<string, unknown>[], failures: number) {
  let left = failures;
  const analytics = {
    rowQueries: 0,
    query: async ({ query, query_params }: { query: string; query_params?: { id?: string } }) => {
      if (left > 0) {
        left--;
        throw new Error('Code: 241. DB::Exception: Memory limit exceeded');
      }
      if (query.endsWith('LIMIT 1')) {
        analytics.rowQueries++;
        return { json: async () => rows.filter((r) => r.id === query_params?.id) };
      }
      const answer = query.startsWith('SELECT count()') ? [{ n: String(rows.length) }] : rows;
      return { json: async () => answer };
    },
  };
  return analytics;
}

const mirror = (analytics: ReturnType<typeof fakeAnalytics>, budget = new RowBudget(1_000)) =>
  new LookupMirror({
    analytics: analytics as unknown as Analytics,
    physical: 't',
    idColumn: 'id',
    toRow: (raw) => ({ id: raw.id as string, tier: raw.tier as string }),
    refreshMs: 1_000,
    maxRows: 100,
    budget,
    now: () => 0,
  });

describe('lookup mirror', () => {
  it('tries the first fill again on the next read after a transient failure', async () => {
    const m = mirror(fakeAnalytics([{ id: 'e1', tier: 'gold', _version: '1' }], 1));
    await expect(m.get('e1')).rejects.toThrow(/Memory limit/);
    await expect(m.get('e1')).resolves.toEqual({ id: 'e1', tier: 'gold' });
    await expect(m.refresh()).resolves.toBeUndefined();
  });

  it('is filled once when the first fill succeeds', async () => {
    const m = mirror(fakeAnalytics([{ id: 'e1', tier: 'gold', _version: '1' }], 0));
    await expect(m.get('e1')).resolves.toEqual({ id: 'e1', tier: 'gold' });
    await expect(m.get('e2')).resolves.toBeUndefined();
  });

  it("keeps an organization's mirrored rows within its budget: a table beyond it is read by query", async () => {
    const budget = new RowBudget(3);
    const small = fakeAnalytics([{ id: 'a', tier: 'x', _version: '1' }, { id: 'b', tier: 'y', _version: '1' }], 0);
    const large = fakeAnalytics([{ id: 'c', tier: 'z', _version: '1' }, { id: 'd', tier: 'w', _version: '1' }], 0);
    const first = mirror(small, budget);
    await expect(first.get('a')).resolves.toEqual({ id: 'a', tier: 'x' });
    const second = mirror(large, budget);
    await expect(second.get('c')).resolves.toEqual({ id: 'c', tier: 'z' });
    expect([small.rowQueries, large.rowQueries]).toEqual([0, 1]);
    // Dropping the first gives its rows back; a new mirror of the larger table fits.
    first.release();
    const again = mirror(large, budget);
    await expect(again.get('d')).resolves.toEqual({ id: 'd', tier: 'w' });
    expect(large.rowQueries).toBe(1);
  });
});
