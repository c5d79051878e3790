/**
 * Pair 3: one Weir process under load. The transactions' p99 (open-loop client at 200/s, from each
 * request's due time to its answer) while the counter pipeline ingests and applies 4,000 events/s
 * in the same process, against the transactions' p99 alone, alternating every few seconds in one
 * run (the two clients are child processes: bench/soak-transactions.ts and bench/counters-load.ts).
 * Before each "alone" phase the pipeline's backlog is settled, so that phase really is alone.
 * The Weir process is this one (with `npm start`'s node options), as in bench/soak.ts.
 * With WEIR_STALL_LOG=<file> (and `node --cpu-prof`) it also logs what the loop did in each phase:
 * stall-log.ts, read with stall-split.ts.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProcess } from '../../../app/start.js';
import { countersService, createCounterReader } from '../../../services/counters.js';
import { rulesService } from '../../../services/rules.js';
import type { LoadJob, LoadReport } from '../../counters-load.js';
import { forkedJob } from '../../forked-job.js';
import { configureSoakOrg, countApplied, SOAK_LOAD } from '../../soak-setup.js';
import { p99, type TransactionJob, type TransactionReport } from '../../soak-transactions.js';
import { fmt, runPair, type Beside } from '../harness.js';
import { startStallLog } from './stall-log.js';

const { txRate: TX_RATE, eventRate: EVENT_RATE, warmUpSeconds: WARM_UP_SECONDS, batch: BATCH, entities: ENTITIES } = SOAK_LOAD;
const PHASE_SECONDS = Number(process.env.WEIR_PEERS_PHASE_SECONDS ?? 6);
const ROUNDS = Number(process.env.WEIR_PEERS_ONE_PROCESS_ROUNDS ?? 10);
const SETTLE_TIMEOUT_MS = 120_000;
const KEY = 'peers-key';

export interface OneProcessMode {
  id: string;
  order: number;
  /** e.g. 'embedded default (embedded log, LMDB, chDB)'. */
  backEnd: string;
  /** Environment of the Weir process beyond its data directory, keys and limits. */
  env: Record<string, string>;
  commands: string[];
  guarantees: string[];
  notes: string[];
}

export async function runOneProcessPair(mode: OneProcessMode): Promise<void> {
  const org = `peers${Date.now().toString(36)}`;
  const weir = await startProcess({
    role: 'all',
    services: [countersService, rulesService({ counters: createCounterReader })],
    env: { PORT: '0', DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'peers-one-')), API_KEYS: `${org}:${KEY}`, LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '100000000', ...mode.env },
  });
  const url = weir.url!;
  // Counts the load's events the pipeline applied, to settle its backlog before a phase alone.
  const applied = countApplied(weir.platform.windows, org);
  const tx = forkedJob<TransactionJob, TransactionReport>(new URL('../../soak-transactions.ts', import.meta.url));
  const load = forkedJob<LoadJob, { report: LoadReport }>(new URL('../../counters-load.ts', import.meta.url));
  try {
    await configureSoakOrg(url, org, KEY);
    const stallFile = process.env.WEIR_STALL_LOG;
    const txJob = (seconds: number): TransactionJob => ({ url, org, apiKey: KEY, rate: TX_RATE, seconds, entities: ENTITIES, timeline: Boolean(stallFile) });
    // Rules compiled, topics opened, JIT warm: not measured.
    await tx.run(txJob(WARM_UP_SECONDS));
    const stallLog = stallFile ? startStallLog(stallFile) : undefined;
    const phase = (which: 'loaded' | 'alone', run: () => Promise<TransactionReport>): Promise<TransactionReport> => (stallLog ? stallLog.phase(which, run) : run());

    const notes = [...mode.notes];
    const pooled = { loaded: [] as number[], alone: [] as number[] };
    const failures = { loaded: 0, alone: 0 };
    // Whether the offered 4,000 events/s were taken: events answered 202 over the phases' wall time.
    const intake = { events: 0, ms: 0 };
    let nextBatch = 0;
    const batchesPerPhase = Math.round((EVENT_RATE * PHASE_SECONDS) / BATCH);
    const settle = async (): Promise<void> => {
      const started = performance.now();
      const backlog = nextBatch * BATCH - applied();
      while (applied() < nextBatch * BATCH) {
        if (performance.now() - started > SETTLE_TIMEOUT_MS) throw new Error(`the counter pipeline did not settle ${fmt(backlog)} events in ${SETTLE_TIMEOUT_MS / 1000} s`);
        await new Promise((r) => setTimeout(r, 50));
      }
      if (backlog > 0) notes.push(`Before an alone phase: ${fmt(backlog)} events still to apply, settled in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
    };
    const record = (which: 'loaded' | 'alone', r: TransactionReport): number => {
      pooled[which].push(...r.latencies);
      failures[which] += Object.values(r.failures).reduce((a, b) => a + b, 0);
      return p99(r.latencies);
    };
    const beside: Beside[] = [];
    await runPair({
      id: mode.id,
      order: mode.order,
      title: `One process, ${mode.backEnd}: transactions with counters at ${fmt(EVENT_RATE)} events/s beside them vs alone`,
      metric: `transactions p99 ms (open-loop at ${TX_RATE}/s, ${PHASE_SECONDS} s phases)`,
      higherIsBetter: false,
      goal: { ratio: 2, text: 'with counters ≤ 2× alone' },
      rounds: ROUNDS,
      weir: {
        name: `transactions at ${TX_RATE}/s with counter events posted at ${fmt(EVENT_RATE)}/s (batches of ${BATCH}) to the same process`,
        async run() {
          const from = nextBatch;
          nextBatch += batchesPerPhase;
          const started = performance.now();
          const r = await phase('loaded', async () => {
            const [t] = await Promise.all([
              tx.run(txJob(PHASE_SECONDS)),
              load.run({ url, org, apiKey: KEY, run: org, from, count: batchesPerPhase, size: BATCH, entityPrefix: 'e', entityModulo: ENTITIES, occurredAt: new Date().toISOString(), pace: { everyMs: (1000 * BATCH) / EVENT_RATE } }),
            ]);
            return t;
          });
          intake.events += batchesPerPhase * BATCH;
          intake.ms += performance.now() - started;
          return record('loaded', r);
        },
      },
      peer: {
        name: `transactions at ${TX_RATE}/s alone (the counter pipeline's backlog settled first)`,
        async run() {
          await settle();
          return record('alone', await phase('alone', () => tx.run(txJob(PHASE_SECONDS))));
        },
        async teardown() {
          const sort = (xs: number[]) => xs.sort((a, b) => a - b);
          beside.push({ name: 'transactions p99 over every phase with counters', value: p99(sort(pooled.loaded)), unit: 'ms', text: `${fmt(pooled.loaded.length)} answered, ${failures.loaded} failed` });
          beside.push({ name: 'transactions p99 over every phase alone', value: p99(sort(pooled.alone)), unit: 'ms', text: `${fmt(pooled.alone.length)} answered, ${failures.alone} failed` });
          stallLog?.stop();
          beside.push({ name: `counter events taken (answered 202) per second of the phases with counters, ${fmt(EVENT_RATE)} offered`, value: (intake.events * 1000) / intake.ms, unit: 'events/s' });
        },
      },
      commands: mode.commands,
      guarantees: mode.guarantees,
      notes,
      beside,
    });
  } finally {
    tx.stop();
    load.stop();
    await weir.stop();
  }
}
