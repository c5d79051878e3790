/**
 * The rule engine's benchmark workload, shared by bench/rules.ts and the transaction pairs of
 * bench/peers: 50 active rules of three evaluations each (amount and currency; two counters; a
 * lookup-table row), the `accounts` table, the counter events behind the counters, and the
 * transactions.
 */

export const RULES = 50;
export const ENTITIES = 1_000;
export const TIERS = ['gold', 'silver', 'bronze'];

export const COUNTERS = [
  { name: 'logins_1h', event_type: 'login', aggregate: 'count', window: { amount: 1, unit: 'hours' } },
  { name: 'amount_24h', event_type: 'payment', aggregate: 'sum', window: { amount: 24, unit: 'hours' } },
];

export const ACCOUNTS_TABLE = {
  tableName: 'accounts',
  columns: [{ name: 'tier', type: 'string' }, { name: 'limit_amount', type: 'number' }, { name: 'frozen', type: 'boolean' }],
  optimization: { status: 'disabled' },
};

export type AccountRow = { id: string; tier: string; limit_amount: number; frozen: boolean };

export const ACCOUNT_ROWS: AccountRow[] = Array.from({ length: ENTITIES }, (_, i) => ({ id: `acct-${i}`, tier: TIERS[i % 3]!, limit_amount: (i % 20) * 100, frozen: i % 11 === 0 }));

export const RULE_BODIES = Array.from({ length: RULES }, (_, i) => ({
  name: `rule ${i}`,
  description: 'benchmark rule: amount, counters and a lookup',
  threshold: 2,
  useAi: false,
  active: true,
  evaluations: [
    { name: 'amount', expression: `amount > ${100 * (i % 10)} AND currency IN ('NGN', 'USD')`, weight: 1 },
    { name: 'velocity', expression: `entity_counters.logins_1h >= ${i % 4} OR entity_counters.amount_24h > ${i * 50}`, weight: 1 },
    { name: 'account', expression: `accounts.tier = '${TIERS[i % 3]}' AND amount > accounts.limit_amount * 0.5 AND NOT accounts.frozen`, weight: 1 },
  ],
  actions: [{ type: 'flag', description: 'review' }],
}));

export interface CounterEvent {
  event_id: string;
  entity_id: string;
  event_type: 'login' | 'payment';
  occurred_at: string;
  value: number;
}

/** Two counter events per entity, all within the last 50 minutes, so inside both windows. */
export function counterEvents(now: number): CounterEvent[] {
  return Array.from({ length: ENTITIES * 2 }, (_, i) => ({
    event_id: `ev-${i}`,
    entity_id: `acct-${i % ENTITIES}`,
    event_type: i % 2 === 0 ? 'login' : 'payment',
    occurred_at: new Date(now - (i % 50) * 60_000).toISOString(),
    value: (i % 7) * 100,
  }));
}

/** A small deterministic generator (mulberry32), so two systems can be given the same transactions. */
function unit(seed: number): number {
  let t = (seed + 0x6d2b79f5) | 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

let issued = 0;

/** Transaction i: its entity, amount and currency depend on i alone; its id is new at every call. */
export function transaction(i: number, run = 'bench') {
  return {
    transaction_id: `${run}-${i}-${++issued}`,
    entity_id: `acct-${Math.floor(unit(i * 2) * ENTITIES)}`,
    amount: Math.round(unit(i * 2 + 1) * 2000 * 100) / 100,
    currency: i % 3 === 0 ? 'USD' : 'NGN',
    transaction_date: '2024-03-01',
    transaction_time: '14:05:00',
    transaction_type: 'transfer',
  };
}

export type Transaction = ReturnType<typeof transaction>;

async function call(url: string, method: string, body: unknown, headers: Record<string, string>): Promise<void> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${new URL(url).pathname}: ${res.status} ${await res.text()}`);
}

/** Configures a Weir process at `base` for the workload: counters and their events, the table and its rows, the rules. */
export async function setupRulesWorkload(base: string, org: string, key: string): Promise<void> {
  const h = { 'x-api-key': key, 'x-org-id': org };
  await call(`${base}/v1/counters/${org}`, 'PUT', { counters: COUNTERS }, h);
  const events = counterEvents(Date.now());
  for (let i = 0; i < events.length; i += 500) await call(`${base}/v1/events/${org}/batch`, 'POST', { events: events.slice(i, i + 500) }, h);
  await call(`${base}/tables/${org}`, 'POST', ACCOUNTS_TABLE, h);
  await call(`${base}/tables/${org}/accounts/data`, 'PUT', ACCOUNT_ROWS, h);
  for (const r of RULE_BODIES) await call(`${base}/rules/${org}`, 'POST', r, h);
}
