import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { rulesService } from '../services/rules.js';
import { countersService, createCounterReader } from '../services/counters.js';
import { client, eventually, rule, tx } from './fixtures/rules-client.js';

/**
 * Issue 10: a transaction a producer publishes straight to the topic is evaluated by the consumer.
 * Delivered again (a crash before the commit), it is evaluated again, perhaps against other rules;
 * the decision stored must stay the first one.
 */

type Proc = Awaited<ReturnType<typeof startTestProcess>>;
let p: Proc;

beforeAll(async () => {
  p = await startTestProcess({ services: [countersService, rulesService({ counters: createCounterReader })] });
});
afterAll(async () => {
  await p?.stop();
});

interface Row {
  triggered_rules_count: number;
  decided_at: string;
  rows: string;
}

const decision = async (id: string): Promise<Row | undefined> => {
  const rs = await p.platform.analytics.query({
    query: `SELECT triggered_rules_count, decided_at, (SELECT count() FROM decisions WHERE org_id = 'org_a' AND transaction_id = {t:String}) AS rows
            FROM decisions FINAL WHERE org_id = 'org_a' AND transaction_id = {t:String}`,
    query_params: { t: id },
    format: 'JSONEachRow',
  });
  return (await rs.json<Row>())[0];
};

describe('decisions of producer-published transactions', () => {
  it('keep the first decision when the message is delivered again after the rules changed', async () => {
    const api = client(p.url, 'key_a');
    const created = await api.post('/rules/org_a', rule({ evaluations: [{ name: 'large', expression: 'amount > 100' }] }));
    expect(created.status).toBe(201);
    const message = { key: 'org_a:acct-1', value: await p.platform.codec.encode('transactions', tx({ transaction_id: 'redelivered-1', amount: 5000, org_id: 'org_a' })) };

    await p.platform.bus.send('transactions', [message]);
    const first = await eventually(() => decision('redelivered-1'));
    expect(first.triggered_rules_count).toBe(1);

    // The rule changes; then the same message arrives again, as after a crash before the commit.
    expect((await api.put(`/rules/org_a/${created.body.data.ruleId}`, rule({ evaluations: [{ name: 'large', expression: 'amount > 1000000' }] }))).status).toBe(200);
    await eventually(async () => (Date.now() > Date.parse(`${first.decided_at.replace(' ', 'T')}Z`) ? true : undefined)); // a later evaluation time
    await p.platform.bus.send('transactions', [message]);
    const after = await eventually(async () => {
      const d = await decision('redelivered-1');
      return d && Number(d.rows) >= 2 ? d : undefined;
    });
    expect({ triggered: after.triggered_rules_count, decided_at: after.decided_at }).toEqual({ triggered: 1, decided_at: first.decided_at });
  });
});
