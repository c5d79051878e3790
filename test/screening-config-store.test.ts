import { describe, expect, it } from 'vitest';
import { OrgConfigStore } from '../pipelines/screening/config-store.js';
import { DEFAULT_RELATIONSHIP_SETTINGS } from '../domain/screening/screen.js';
import type { Analytics } from '../infra/analytics/types.js';
import { manualClock } from '../infra/clock.js';

/** A settings table whose queries answer only when the test says so. */
function slowTable(minScore: number) {
  const pending: (() => void)[] = [];
  let queries = 0;
  const analytics = {
    query: async () => {
      queries++;
      await new Promise<void>((r) => pending.push(r));
      return { json: async () => [{ settings: JSON.stringify({ min_score: minScore }), updated_at: '2026-11-26 09:00:00.000' }] };
    },
  } as unknown as Analytics;
  return { analytics, release: () => pending.splice(0).forEach((r) => r()), queries: () => queries };
}

/** Issue 16 (tail latency): a screen never waits for a settings query once the settings are known. */
describe('per-organization screening settings', () => {
  it('answers expired settings at once while one query refreshes them, and shares a first read', async () => {
    const clock = manualClock(0);
    const table = slowTable(0.9);
    const store = new OrgConfigStore(table.analytics, clock);
    const first = [store.get('org'), store.get('org'), store.get('org')];
    expect(table.queries()).toBe(1);
    table.release();
    for (const s of await Promise.all(first)) expect(s.min_score).toBe(0.9);

    clock.advance(60_000);
    const stale = await Promise.race([store.get('org'), new Promise((r) => setTimeout(() => r('waited'), 50))]);
    expect(stale).toMatchObject({ min_score: 0.9 });
    await store.get('org');
    expect(table.queries()).toBe(2); // one refresh in flight, however many screens
    table.release();
    await new Promise((r) => setImmediate(r));
    expect(table.queries()).toBe(2);
    expect(DEFAULT_RELATIONSHIP_SETTINGS.min_score).not.toBe(0.9);
  });
});
