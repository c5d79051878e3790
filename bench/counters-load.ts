/**
 * The load generator of bench/counters.ts, run as a child process (`fork`) so that building and
 * posting requests neither shares the event loop of the Weir process under test nor counts in its
 * CPU time. The parent sends one job at a time; the child posts it and answers when every request
 * was answered, with the instant each batch's request started (epoch ms, comparable across processes).
 */

export interface LoadJob {
  url: string;
  org: string;
  apiKey: string;
  /** Event ids are `<run>-<batch>-<i>`; batches `from` .. `from + count - 1`. */
  run: string;
  from: number;
  count: number;
  size: number;
  /** Entity of event number n (counted across batches): `<prefix><n % modulo>`. */
  entityPrefix: string;
  entityModulo: number;
  occurredAt: string;
  /** `inFlight` requests at once as fast as answers come, or one request every `everyMs`. */
  pace: { inFlight: number } | { everyMs: number };
}

export interface LoadReport {
  /** Epoch ms (sub-millisecond) at which each batch's request started, by batch number. */
  sentAt: Record<number, number>;
  /** CPU time of the load generator for this job (µs). */
  cpuMicros: number;
}

/** Epoch ms with sub-millisecond resolution: both processes read the same clock. */
export const epochNow = (): number => performance.timeOrigin + performance.now();

function bodies(job: LoadJob): string[] {
  const out: string[] = [];
  for (let b = job.from; b < job.from + job.count; b++) {
    const events = Array.from({ length: job.size }, (_, i) => {
      const n = b * job.size + i;
      return { event_id: `${job.run}-${b}-${i}`, entity_id: `${job.entityPrefix}${n % job.entityModulo}`, event_type: 'txn', occurred_at: job.occurredAt, value: (n % 997) / 10 };
    });
    out.push(JSON.stringify({ events }));
  }
  return out;
}

async function post(job: LoadJob, body: string): Promise<void> {
  const send = () =>
    fetch(`${job.url}/v1/events/${job.org}/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-org-id': job.org, 'x-api-key': job.apiKey },
      body,
    });
  // A keep-alive socket the server closed as it was reused fails: sent again (the event ids make it harmless).
  const res = await send().catch(send);
  if (res.status !== 202) throw new Error(`ingestion answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

async function runJob(job: LoadJob): Promise<LoadReport> {
  // Bodies are built before the clock starts: the generator only sends.
  const work = bodies(job);
  const sentAt: Record<number, number> = {};
  const cpu0 = process.cpuUsage();
  const send = (i: number) => {
    sentAt[job.from + i] = epochNow();
    return post(job, work[i]!);
  };
  if ('inFlight' in job.pace) {
    let next = 0;
    await Promise.all(
      Array.from({ length: job.pace.inFlight }, async () => {
        while (next < work.length) await send(next++);
      }),
    );
  } else {
    const start = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < work.length; i++) {
      const wait = start + i * job.pace.everyMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      // A keep-alive socket reset under load loses the request: sent again (its event ids make that safe).
      inflight.push(send(i).catch(() => send(i)));
    }
    await Promise.all(inflight);
  }
  const cpu = process.cpuUsage(cpu0);
  return { sentAt, cpuMicros: cpu.user + cpu.system };
}

if (process.send) {
  process.on('message', (job: LoadJob) => {
    runJob(job).then(
      (report) => process.send!({ ok: true, report }),
      (err: unknown) => process.send!({ ok: false, error: String(err) }),
    );
  });
}
