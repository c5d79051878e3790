import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestProcess } from './support/process.js';
import { rulesService } from '../services/rules.js';
import { countersService, createCounterReader } from '../services/counters.js';
import { client, eventually, rule, tx } from './fixtures/rules-client.js';
import { DLQ_REASON_HEADER, dlqTopic } from '../infra/bus/types.js';

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

describe('a decision row ClickHouse refuses', () => {
  it('goes to transactions.dlq alone; the decisions of other partitions that shared its insert are stored', async () => {
    const decisionHeaders = (results: string) => ({
      'x-weir-decision': JSON.stringify({ decided_at: '2024-03-01T14:05:00Z', score: 1, triggered_rules_count: 1 }),
      'x-weir-rule-results': results,
    });
    const message = async (id: string, entity: string, results: string) => ({
      key: `org_a:${entity}`,
      value: await p.platform.codec.encode('transactions', tx({ transaction_id: id, entity_id: entity, org_id: 'org_a' })),
      headers: decisionHeaders(results),
    });
    // ClickHouse refuses any insert holding the row of refused-1 (as it would a row it cannot parse).
    const analytics = p.platform.analytics;
    const exec = analytics.exec.bind(analytics);
    analytics.exec = async (params) => {
      if (params.query.startsWith('INSERT INTO decisions') && 'values' in params) {
        const chunks: Buffer[] = [];
        for await (const c of params.values) chunks.push(Buffer.from(c as string));
        const text = Buffer.concat(chunks).toString();
        if (text.includes('"refused-1"')) throw Object.assign(new Error('Cannot parse input (row refused-1)'), { type: 'CANNOT_PARSE_INPUT_ASSERTION_FAILED' });
        params = { ...params, values: Readable.from([text]) };
      }
      return exec(params);
    };
    onTestFinished(() => {
      analytics.exec = exec;
    });
    const refused = await message('refused-1', 'acct-x', '[["r1",1,1,1,[1]]]');
    const others = await Promise.all(Array.from({ length: 12 }, (_, i) => message(`shared-${i}`, `acct-${i}`, '[["r1",1,1,1,[1]]]')));
    await p.platform.bus.send('transactions', [refused, ...others]);
    const stored = await eventually(async () => {
      const rs = await p.platform.analytics.query({ query: "SELECT transaction_id FROM decisions FINAL WHERE org_id = 'org_a' AND startsWith(transaction_id, 'shared-')", format: 'JSONEachRow' });
      const rows = await rs.json<{ transaction_id: string }>();
      return rows.length === others.length ? rows : undefined;
    }, 60_000);
    expect(stored).toHaveLength(12);
    const dead: string[] = [];
    const sub = await p.platform.bus.subscribe({
      groupId: 'test.refused.dlq',
      topics: [dlqTopic('transactions')],
      fromBeginning: true,
      eachBatch: async (b) => {
        for (const m of b.messages) dead.push(`${JSON.parse(m.value.toString()).transaction_id}: ${m.headers?.[DLQ_REASON_HEADER]}`);
      },
    });
    await eventually(async () => (dead.length > 0 ? true : undefined), 60_000);
    await sub.stop();
    expect(dead).toEqual([expect.stringMatching(/^refused-1: handler failed 3 times: /)]);
  }, 150_000);
});
