/**
 * The webhooks pair's peer, run as a child process (`fork`): a bare undici pool posting signed
 * webhook bodies to one receiver, `concurrency` at a time, with no queue, no retry, no log and no
 * durability. Each body and its headers are built as Weir's delivery worker builds them (the same
 * JSON shape, the same `x-service-signature` HMAC over the exact bytes). On a job it sends
 * `deliveries` requests and answers {sent, failed} once every answer is in.
 */
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { serviceSignature } from '../../../domain/webhooks/signing.js';

export interface SenderJob {
  url: string;
  deliveries: number;
  concurrency: number;
  secret: string;
  event: string;
  payload: Record<string, unknown>;
}

async function run(job: SenderJob): Promise<{ sent: number; failed: number }> {
  const target = new URL(job.url);
  const pool = new Pool(target.origin, { connections: job.concurrency, keepAliveTimeout: 30_000 });
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < job.deliveries) {
      const i = next++;
      const id = randomUUID();
      const body = Buffer.from(JSON.stringify({ delivery_id: id, event: job.event, timestamp: new Date().toISOString(), payload: { ...job.payload, run_id: `b${i}` } }));
      const headers = { 'content-type': 'application/json', 'user-agent': 'bare-sender/1.0', 'x-service-delivery-id': id, 'x-service-signature': serviceSignature(job.secret, body) };
      try {
        const res = await pool.request({ path: `${target.pathname}-${i % 4}`, method: 'POST', body, headers });
        await res.body.dump();
        if (res.statusCode < 200 || res.statusCode >= 300) failed++;
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  await pool.close();
  return { sent: job.deliveries, failed };
}

process.on('message', (job: SenderJob) => {
  run(job).then(
    (r) => process.send!({ ok: true, ...r }),
    (err: unknown) => process.send!({ ok: false, error: String(err) }),
  );
});
