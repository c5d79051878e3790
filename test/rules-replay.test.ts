import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { rulesService } from '../services/rules.js';
import { countersService, createCounterReader } from '../services/counters.js';
import { client, eventually, rule, tx } from './fixtures/rules-client.js';

/** A transaction_id is remembered in the window store and its decision in ClickHouse: both outlive the process. */
describe('transaction replays across a restart', () => {
  it('answer the decision stored before the restart, and 409 for another body', { timeout: 120_000 }, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'weir-replay-'));
    const env = { CLICKHOUSE_DATABASE: `replay_${process.pid}` };
    const start = () => startTestProcess({ services: [countersService, rulesService({ counters: createCounterReader })], dataDir, env });
    const t = tx({ transaction_id: 'restart-1', amount: 5000 });

    const before = await start();
    let first;
    try {
      const api = client(before.url, 'key_a');
      expect((await api.post('/rules/org_a', rule())).status).toBe(201);
      first = await api.post('/transaction/org_a', t);
      expect(first.status).toBe(200);
      await eventually(async () => {
        const rs = await before.platform.analytics.query({ query: "SELECT count() AS n FROM decisions FINAL WHERE transaction_id = 'restart-1'", format: 'JSONEachRow' });
        return Number((await rs.json<{ n: string }>())[0]!.n) > 0 ? true : undefined;
      });
    } finally {
      await before.stop();
    }

    const after = await start();
    try {
      const api = client(after.url, 'key_a');
      const again = await api.post('/transaction/org_a', t);
      expect(again.status).toBe(200);
      expect(again.headers?.get('idempotent-replayed')).toBe('true');
      expect(again.body.data).toEqual({ ...first.body.data, replay: true });
      expect((await api.post('/transaction/org_a', { ...t, amount: 6000 })).status).toBe(409);
    } finally {
      await after.stop();
    }
  });
});
