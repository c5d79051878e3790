import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runPair, type PairSpec } from '../harness.js';
import { setupRulesWorkload, transaction, RULES, ENTITIES } from '../../rules-workload.js';
import { createJsonRulesDecider } from '../json-rules/engine.js';
import { npmInstall } from './install.js';
import { pairRun } from './pair-run.js';
import { loadSide, send, startTimedServer, type TimedServer } from './latency.js';

/**
 * The transactions pairs (issue pair 2): POST /transaction to Weir with 50 rules, counters and a
 * lookup table, against a bare node:http server doing the same durable append (floor-server.ts),
 * alone or with the same rules in json-rules-engine. Each side runs in its own server process
 * with the request timer preloaded; a round is an open-loop run at `rate` per second, and the
 * figure is the p99 of the server-side time (from the request's arrival to its response's last
 * byte; latency.ts). Both servers stay up for the whole pair.
 */

const SECONDS = Number(process.env.PEERS_SECONDS ?? 20);
const WARM_UP = 500;
const CHECKED = 200;
const ORG = 'peers';
const KEY = 'peers-bench-key';

const here = path.dirname(new URL(import.meta.url).pathname);
const weirServer = new URL('./weir-rules-server.ts', import.meta.url).href;
const floorServer = new URL('./floor-server.ts', import.meta.url).href;
const scratch = (name: string) => mkdtemp(path.join(os.tmpdir(), `weir-peers-${name}-`));

const request = (run: string) => (i: number) => ({
  method: 'POST' as const,
  path: `/transaction/${ORG}`,
  headers: { 'x-api-key': KEY },
  body: JSON.stringify(transaction(i, run)),
});

const triggeredOf = (text: string): number => Number(/"triggeredRulesCount":(\d+)/.exec(text)?.[1] ?? NaN);

/** A side with its own timed server, started and warmed up by its setup. */
function serverSide(name: string, rate: number, notes: string[], start: () => Promise<TimedServer>) {
  let server: TimedServer | undefined;
  const side = loadSide({
    name,
    rate,
    seconds: SECONDS,
    notes,
    server: () => server!,
    request: (round) => request(`r${round}`),
    expect: [200],
    async setup() {
      server = await start();
      for (let i = 0; i < WARM_UP; i++) {
        const a = await send(server.url, request('warm')(i));
        if (a.status !== 200) throw new Error(`${name} answered ${a.status} in the warm-up: ${a.text.slice(0, 300)}`);
      }
    },
    teardown: async () => server?.stop(),
  });
  return { ...side, server: () => server! };
}

export async function runTransactionsPair(opts: { id: string; rate: number; peer: 'floor' | 'json-rules-engine' }): Promise<void> {
  const notes = [
    `Both sides: one server process each (the node options of \`npm start\`), loaded by node:http keep-alive clients in the pair's process, open loop at ${opts.rate} transactions/s for ${SECONDS} s a run after ${WARM_UP} warm-up requests; the same transactions (${ENTITIES} entities, ${RULES} rules of three evaluations). Server-side time is taken inside each server by the same preloaded timer (node:http's diagnostics channels, request start to response finish).`,
  ];
  const beside: NonNullable<PairSpec['beside']> = [];
  const withRules = opts.peer === 'json-rules-engine';
  const weir = serverSide('Weir (POST /transaction, role all, embedded defaults)', opts.rate, notes, async () => {
    const server = await startTimedServer(weirServer, { DATA_DIR: await scratch('weir'), API_KEYS: `${ORG}:${KEY}`, RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'warn' });
    await setupRulesWorkload(server.url, ORG, KEY);
    return server;
  });
  const peerName = withRules ? 'bare node:http server + json-rules-engine 7.3.1 + the same durable append' : 'bare node:http server, the same durable append (floor)';
  const peer = serverSide(peerName, opts.rate, notes, async () => {
    if (withRules) notes.push(await npmInstall(path.join(here, '..', 'json-rules')));
    return startTimedServer(floorServer, { DATA_DIR: await scratch('floor'), LOG_LEVEL: 'warn', ...(withRules ? { FLOOR_RULES: 'json-rules-engine' } : {}) });
  });
  if (withRules) {
    const setup = peer.setup;
    peer.setup = async () => {
      await setup!();
      // Both decide the same transactions alike, or the comparison means nothing.
      let differ = 0;
      for (let i = 0; i < CHECKED; i++) {
        const [w, p] = await Promise.all([send(weir.server().url, request('check-w')(i)), send(peer.server().url, request('check-p')(i))]);
        if (triggeredOf(w.text) !== triggeredOf(p.text)) differ++;
      }
      notes.push(`Checked before the rounds: of ${CHECKED} transactions sent to both, ${differ} had a different count of triggered rules.`);
      if (differ > 0) throw new Error(`json-rules-engine and Weir disagree on ${differ} of ${CHECKED} transactions`);
      beside.push(await jsonRulesAlone());
    };
  }
  await runPair({
    id: opts.id,
    order: 2,
    title: withRules
      ? `Transactions: Weir (50 rules, counters, lookup table) vs 50 rules in json-rules-engine in a bare server, ${opts.rate}/s`
      : `Transactions: Weir (50 rules, counters, lookup table) vs the floor (bare node:http + the same durable append), ${opts.rate}/s`,
    metric: 'server-side p99 ms',
    higherIsBetter: false,
    goal: withRules ? { ratio: 1, text: 'Weir ≤ 1.0× (the issue sets none: this pair shows what the compiled evaluator is worth)' } : { ratio: 1.5, text: 'Weir ≤ 1.5× the floor' },
    weir,
    peer,
    ...pairRun(opts.id, 'PEERS_SECONDS (20) per run, PEERS_ROUNDS (3)'),
    guarantees: [
      'Weir: answers 200 once the transaction and its signed decision are durably in the `transactions` log (embedded log, O_DSYNC); the request is validated against the organization\'s fields, authenticated, rate-limited; the decisions consumer writes it to ClickHouse (chDB) afterwards; the counters are live (the window store) and the lookup table is the organization\'s.',
      withRules
        ? 'Peer: the same durable append (Weir\'s own embedded log and codec, same topic, partitions and key) of the request and its rule results; no validation, authentication or rate limit; counters and table rows from in-memory maps filled once; nothing else stored.'
        : 'Floor: the same durable append (Weir\'s own embedded log and codec, same topic, partitions and key); no validation, authentication, rate limit, rules, counters, lookups or decision.',
    ],
    notes,
    beside,
  });
}

/** json-rules-engine's decision alone, in this process: no HTTP, no append. */
async function jsonRulesAlone(): Promise<{ name: string; value: number; unit: string; text: string }> {
  const decide = createJsonRulesDecider();
  for (let i = 0; i < 200; i++) await decide(transaction(i));
  const n = 1_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await decide(transaction(i));
  const us = ((performance.now() - t0) * 1000) / n;
  return { name: 'json-rules-engine deciding one transaction alone (50 rules, 150 evaluations; in process, sequential)', value: us, unit: 'µs', text: "Weir's compiled engine alone: bench/rules.ts, \"The engine alone\"" };
}
