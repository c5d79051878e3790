/**
 * Transaction client of bench/soak.ts, run as a child process (`fork`) so its requests and timers
 * do not share the event loop of the Weir process under test. On a job it posts transactions
 * open-loop (request i due at start + i / rate, whatever happened before) and answers the
 * latencies in ms, sorted, the p99 of each minute (to tell a steady tail from one that grows), and
 * the failures counted by reason.
 */
export interface TransactionJob {
  url: string;
  org: string;
  apiKey: string;
  rate: number;
  seconds: number;
  entities: number;
  /** Answer each transaction's due time (CLOCK_MONOTONIC ms, the same clock in every process) and latency. */
  timeline?: boolean;
}

export interface TransactionReport {
  latencies: number[];
  minuteP99s: number[];
  failures: Record<string, number>;
  timeline?: [number, number][];
}

/** The 99th percentile of values sorted ascending. */
export const p99 = (sorted: number[]): number => sorted[Math.floor(0.99 * (sorted.length - 1))] ?? NaN;

async function run(job: TransactionJob): Promise<TransactionReport> {
  const latencies: number[] = [];
  const minutes: number[][] = [];
  const total = job.rate * job.seconds;
  const start = performance.now() + 20;
  const timeline: [number, number][] = [];
  const perfToMono = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / job.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = JSON.stringify({
      transaction_id: `soak-${i}-${Math.random().toString(36).slice(2, 8)}`,
      entity_id: `e${i % job.entities}`,
      amount: (i % 2000) + 0.5,
      currency: 'USD',
      transaction_date: '2024-03-01',
      transaction_time: '14:05:00',
    });
    const post = () => fetch(`${job.url}/transaction/${job.org}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': job.apiKey }, body });
    inflight.push(
      // A keep-alive socket the server closed as it was reused fails before sending: sent again.
      post()
        .catch(post)
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`transaction answered ${res.status}`);
          const ms = performance.now() - due;
          latencies.push(ms);
          if (job.timeline) timeline.push([due + perfToMono, ms]);
          (minutes[Math.floor((due - start) / 60_000)] ??= []).push(ms);
        }),
    );
  }
  const failures = new Map<string, number>();
  await Promise.all(inflight.map((p) => p.catch((err: Error) => failures.set(String(err.cause ?? err.message), (failures.get(String(err.cause ?? err.message)) ?? 0) + 1))));
  return { latencies: latencies.sort((a, b) => a - b), minuteP99s: [...minutes].map((m) => p99((m ?? []).sort((a, b) => a - b))), failures: Object.fromEntries(failures), ...(job.timeline ? { timeline } : {}) };
}

if (process.send) {
  process.on('message', (job: TransactionJob) => {
    run(job).then(
      (result) => process.send!({ ok: true, ...result }),
      (err: unknown) => process.send!({ ok: false, error: String(err) }),
    );
  });
}
