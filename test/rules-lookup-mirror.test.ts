import { describe, expect, it } from 'vitest';
import type { Analytics } from '../infra/analytics/types.js';
import { LookupMirror } from '../pipelines/rules/lookup-mirror.js';

/** A ClickHouse stand-in holding one table of rows, whose next `failures` queries fail. */
function fakeAnalytics(rows: Record<string, unknown>[], failures: number) {
  let left = failures;
  const analytics = {
    query: async ({ query }: { query: string }) => {
      if (left > 0) {
        left--;
        throw new Error('Code: 241. DB::Exception: Memory limit exceeded');
      }
      const answer = query.startsWith('SELECT count()') ? [{ n: String(rows.length) }] : rows;
      return { json: async () => answer };
    },
  };
  return analytics as unknown as Analytics;
}

const mirror = (analytics: Analytics) =>
  new LookupMirror({ analytics, physical: 't', idColumn: 'id', toRow: (raw) => ({ id: raw.id as string, tier: raw.tier as string }), refreshMs: 1_000, maxRows: 100, now: () => 0 });

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
});
