import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { requireAddress, shouldRun } from './support/infra.js';
import { rulesService } from '../services/rules.js';
import { countersService, createCounterReader } from '../services/counters.js';
import { client, eventually, tx } from './fixtures/rules-client.js';
import { PAYMENTS_TABLE } from './fixtures/rules-schema.js';

/**
 * The rule engine on real Kafka (the transactions topic and its consumer) and Redis (windowState
 * aggregates): the same path as the embedded tests, on the adapters production uses.
 */
describe.skipIf(!shouldRun('kafkaBrokers') || !shouldRun('redisUrl'))('rule engine on Kafka and Redis', () => {
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  const run = Math.random().toString(36).slice(2, 8);
  beforeAll(async () => {
    p = await startTestProcess({
      services: [countersService, rulesService({ counters: createCounterReader })],
      // Topics and groups of its own (KAFKA_NAMESPACE): the counters crash test runs a counters service on the same broker.
      env: { KAFKA_BROKERS: requireAddress('kafkaBrokers'), KAFKA_NAMESPACE: `rules${run}`, REDIS_URL: requireAddress('redisUrl') },
    });
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('evaluates with Redis-kept aggregates and writes the decision through Kafka', async () => {
    const api = client(p.url, 'key_a');
    expect((await api.post('/tables/org_a', PAYMENTS_TABLE)).status).toBe(201);
    const entity = `acct-${run}`;
    const now = Date.now();
    const rows = [0, 1, 2].map((i) => ({ id: `${run}-p${i}`, account: entity, value: 10, at: new Date(now - i * 60_000).toISOString() }));
    expect((await api.put('/tables/org_a/payments/data', rows)).body.data.inserted_count).toBe(3);
    const created = await api.post('/rules/org_a', {
      name: 'three payments', description: '', threshold: 1,
      evaluations: [{ name: 'busy', expression: 'payments.count_1h = 3 AND payments.value_1d = 30' }],
      actions: [{ type: 'flag', description: 'review' }],
    });
    expect(created.status).toBe(201);
    const transactionId = `real-${run}`;
    const answer = await api.post('/transaction/org_a', tx({ transaction_id: transactionId, entity_id: entity }));
    expect(answer.body.data.triggeredRulesCount).toBe(1);
    const rows2 = await eventually(async () => {
      const rs = await p.platform.analytics.query({ query: 'SELECT triggered_rules_count FROM decisions FINAL WHERE transaction_id = {t:String}', query_params: { t: transactionId }, format: 'JSONEachRow' });
      const r = await rs.json<{ triggered_rules_count: number }>();
      return r.length > 0 ? r : undefined;
    }, 60_000);
    expect(rows2).toEqual([{ triggered_rules_count: 1 }]);
  });
});
