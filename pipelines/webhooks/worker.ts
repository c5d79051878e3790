import { Counter, Histogram, type Registry } from 'prom-client';
import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import { isSuccess, nextAttemptAt } from '../../domain/webhooks/retry.js';
import { signatureHeaders } from '../../domain/webhooks/signing.js';
import { startStage } from '../stage.js';
import { CATCH_ALL, DELIVERIES_TOPIC, deliveryJobSchema, type DeliveryJob } from './topics.js';
import type { Registry as Registrations } from './registry.js';
import type { AttemptRecord, DeliveryLog } from './delivery-log.js';
import type { Sender } from './sender.js';
import type { RetrySchedule, ScheduledJob } from './retry-schedule.js';
import type { Health } from './health.js';
import { circuitKey, type CircuitBoard } from './circuit-board.js';
import { mapLimit } from '../../infra/map-limit.js';

/**
 * The delivery worker pool: consumes `webhook.deliveries`, attempts each job of a batch side by side
 * (the sender bounds each destination), writes every attempt to the delivery log, schedules
 * retries and deferrals durably, and only then lets the batch commit. A worker killed mid-batch
 * leaves the batch uncommitted, so it is attempted again with the same delivery ids.
 */

const BATCH_CONCURRENCY = 256;
/** Deferred deliveries are spread over this much time after their circuit reopens. */
const RELEASE_SPREAD_MS = 250;

export interface WorkerDeps {
  platform: Platform;
  registry: Registrations;
  log: DeliveryLog;
  sender: Sender;
  schedule: RetrySchedule;
  health: Health;
  board: CircuitBoard;
}

interface Outcome {
  record: AttemptRecord;
  next?: ScheduledJob;
}

const metricsByRegistry = new WeakMap<Registry, { attempts: Counter<'status'>; latency: Histogram }>();
function workerMetrics(registry: Registry) {
  let m = metricsByRegistry.get(registry);
  if (!m) {
    m = {
      attempts: new Counter({ name: 'weir_webhook_attempts_total', help: 'Webhook delivery attempts by outcome', labelNames: ['status'], registers: [registry] }),
      latency: new Histogram({ name: 'weir_webhook_attempt_seconds', help: 'Webhook attempt latency', buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry] }),
    };
    metricsByRegistry.set(registry, m);
  }
  return m;
}

export function createAttempter(deps: WorkerDeps) {
  const { registry, sender, health, board } = deps;
  const { clock, config, log } = deps.platform;

  const record = (job: DeliveryJob, url: string, status: AttemptRecord['status'], error: string | null, at: number, next?: ScheduledJob): Outcome => ({
    record: { job, status, httpStatus: null, latencyMs: 0, error, responseBody: null, url, attemptedAt: at, nextAttemptAt: next?.dueAt ?? null },
    ...(next ? { next } : {}),
  });

  /** One attempt of one job: resolve the target, respect its circuit, send, judge the answer. */
  return async function attempt(job: DeliveryJob): Promise<Outcome> {
    const now = clock.now();
    const catchAll = job.target === CATCH_ALL;
    const registration = catchAll ? undefined : await registry.get(job.org_id, job.target);
    const url = catchAll ? await registry.catchAll(job.org_id) : registration?.url;
    if (!url) return record(job, '', 'skipped', catchAll ? 'the organization has no catch-all address' : 'the registration was deleted', now);
    if (registration && !registration.enabled && !job.manual) return record(job, url, 'skipped', `target disabled: ${registration.disabled_reason ?? 'by its owner'}`, now);

    const key = circuitKey(job.org_id, url);
    const defer = (release: number) => record(job, url, 'deferred', 'circuit open for this organization and URL', now, { job, dueAt: release + Math.floor(Math.random() * RELEASE_SPREAD_MS) });
    const bypass = job.bypass_circuit === true;
    if (!bypass && health.releaseAt(key, now) > now) {
      // A reset asked over the API (DELETE /webhooks/{id}/circuit) since the circuit opened closes it here too.
      const resetAt = await board.resetAt(key);
      if (resetAt === null || !health.resetIfAskedSince(key, resetAt)) return defer(health.releaseAt(key, now));
    }

    const body = Buffer.from(JSON.stringify({ delivery_id: job.delivery_id, event: job.event, timestamp: job.timestamp, payload: job.payload }));
    const secrets = registration ? registry.secrets(registration) : null;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Weir-Webhooks/1.0',
      'x-service-delivery-id': job.delivery_id,
      ...(secrets ? signatureHeaders(secrets, { standard: registration!.standard_webhooks, id: job.delivery_id, timestampSeconds: Math.floor(now / 1000), body }) : {}),
    };
    // The circuit is asked again once a connection slot is free: it may have opened meanwhile.
    let heldUntil = 0;
    const res = await sender.send(url, body, headers, () => {
      const t = clock.now();
      heldUntil = health.admit(key, t);
      return bypass || heldUntil <= t;
    });
    if (res === null) return defer(heldUntil);
    const at = clock.now();
    const ok = isSuccess(res);
    const { disable, circuit } = health.record(key, registration ? `${job.org_id}:${job.target}` : null, ok, at);
    if (circuit) await board.write(key, circuit, at);
    if (registration && ok && !registration.enabled) await registry.setHealth(job.org_id, job.target, true, null);
    if (registration && disable && registration.enabled) {
      const reason = `deliveries failed without a success for ${config.WEBHOOK_DISABLE_AFTER_MS} ms`;
      await registry.setHealth(job.org_id, job.target, false, reason);
      log.warn({ org: job.org_id, webhook: job.target }, 'webhook target disabled after persistent failures');
    }
    // A redelivery's retries count from its own first attempt.
    const nth = job.attempt - (job.retry_from ?? 1) + 1;
    const nextAt = ok || res.refused ? null : nextAttemptAt({ attempt: nth, result: res, retryAfter: res.retryAfter, now: at, random: Math.random(), baseMs: config.WEBHOOK_RETRY_BASE_MS });
    // The circuit is bypassed once: the retries of a redelivery wait for it like any other.
    const next = nextAt === null ? undefined : { job: { ...job, attempt: job.attempt + 1, bypass_circuit: undefined }, dueAt: nextAt };
    return {
      record: {
        job,
        status: ok ? 'succeeded' : next ? 'retrying' : 'failed',
        httpStatus: res.status,
        latencyMs: res.latencyMs,
        error: res.error,
        responseBody: res.responseBody,
        url,
        attemptedAt: at,
        nextAttemptAt: nextAt,
      },
      ...(next ? { next } : {}),
    };
  };
}

export async function startDeliveryWorker(deps: WorkerDeps): Promise<Stoppable> {
  const m = workerMetrics(deps.platform.metrics);
  const attempt = createAttempter(deps);
  const poller = deps.schedule.start();
  const stage = await startStage({
    platform: deps.platform,
    name: 'webhooks.deliveries',
    topic: DELIVERIES_TOPIC,
    schema: deliveryJobSchema,
    handle: async (records) => {
      const outcomes = await mapLimit(records, BATCH_CONCURRENCY, (r) => attempt(r.value));
      await deps.schedule.add(outcomes.flatMap((o) => (o.next ? [o.next] : [])));
      await deps.log.record(outcomes.map((o) => o.record));
      // Counted once per status and batch: prom-client's labelled inc is a hash of the labels each time.
      const byStatus = new Map<AttemptRecord['status'], number>();
      for (const o of outcomes) {
        byStatus.set(o.record.status, (byStatus.get(o.record.status) ?? 0) + 1);
        if (o.record.status !== 'deferred' && o.record.status !== 'skipped') m.latency.observe(o.record.latencyMs / 1000);
      }
      for (const [status, n] of byStatus) m.attempts.inc({ status }, n);
    },
  });
  return {
    async stop() {
      await stage.stop();
      await poller.stop();
      await deps.log.close();
      await deps.sender.close();
    },
  };
}
