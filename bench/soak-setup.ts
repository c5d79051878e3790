/**
 * What a soak of one process under mixed load sets up (bench/soak.ts, bench/peers/one-process):
 * the organization's counters and a rule reading two of them, and a count of the load's events the
 * counter pipeline applied.
 */
import type { WindowStore } from '../infra/windows/types.js';

/** Three counters, and a rule that reads two of them on every transaction. */
export async function configureSoakOrg(url: string, org: string, apiKey: string): Promise<void> {
  const h = { 'content-type': 'application/json', 'x-api-key': apiKey, 'x-org-id': org };
  const put = await fetch(`${url}/v1/counters/${org}`, {
    method: 'PUT',
    headers: h,
    body: JSON.stringify({
      counters: [
        { name: 'txn_1h', event_type: 'txn', aggregate: 'count', window: { amount: 1, unit: 'hours' } },
        { name: 'amount_24h', event_type: 'txn', aggregate: 'sum', window: { amount: 24, unit: 'hours' } },
        { name: 'last_txn', event_type: 'txn', aggregate: 'last_seen' },
      ],
    }),
  });
  if (put.status !== 200) throw new Error(`counters config: ${put.status} ${await put.text()}`);
  const rule = await fetch(`${url}/rules/${org}`, {
    method: 'POST',
    headers: h,
    body: JSON.stringify({
      name: 'velocity',
      description: 'soak',
      threshold: 1,
      evaluations: [{ name: 'v', expression: 'entity_counters.txn_1h > 10 OR entity_counters.amount_24h > 5000', weight: 1 }],
      actions: [{ type: 'flag', description: 'review' }],
    }),
  });
  if (rule.status >= 300) throw new Error(`rule: ${rule.status} ${await rule.text()}`);
}

/** Counts the events with an id starting with `prefix` the store applied (wraps its apply); answers the count so far. */
export function countApplied(windows: WindowStore, prefix: string): () => number {
  let applied = 0;
  const apply = windows.apply.bind(windows);
  windows.apply = async (requests, options) => {
    const result = await apply(requests, options);
    applied += requests.filter((r) => r.once?.id.startsWith(prefix)).length;
    return result;
  };
  return () => applied;
}
