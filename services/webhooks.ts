import path from 'node:path';
import type { Platform } from '../infra/platform.js';
import type { ServiceModule } from './types.js';
import { eventsLane, webhooksRouter } from '../api/webhooks/routes.js';
import { createRegistry, presentRegistration, registryMigration, type Registry } from '../pipelines/webhooks/registry.js';
import { loadSecretBox } from '../pipelines/webhooks/secret-box.js';
import { createDeliveryLog, deliveryLogMigration } from '../pipelines/webhooks/delivery-log.js';
import { createFanOut } from '../pipelines/webhooks/fan-out.js';
import { startIntakeStage } from '../pipelines/webhooks/intake-stage.js';
import { startDeliveryWorker } from '../pipelines/webhooks/worker.js';
import { createRetrySchedule } from '../pipelines/webhooks/retry-schedule.js';
import { createSender } from '../pipelines/webhooks/sender.js';
import { createHealth } from '../pipelines/webhooks/health.js';
import { createCircuitBoard } from '../pipelines/webhooks/circuit-board.js';
import { DELIVERIES_TOPIC, WORKFLOW_EVENTS_TOPIC } from '../pipelines/webhooks/topics.js';
import { registrationBody, registrationPatch } from '../schemas/http/webhooks.js';
import { approvalRoutes } from '../api/webhooks/approvals.js';
import { approvalsMigration, createApprovals } from '../pipelines/webhooks/approvals.js';
import { createSdkUsers, OTP_TOPIC, sdkUsersMigration } from '../pipelines/webhooks/sdk-users.js';

/** One registry per platform, shared by the service and other services that configure webhooks (risk). */
const registries = new WeakMap<Platform, Promise<Registry>>();
function registryOf(platform: Platform): Promise<Registry> {
  let r = registries.get(platform);
  if (!r) {
    r = loadSecretBox(platform.config.WEBHOOK_SECRETS_KEY, path.resolve(platform.config.DATA_DIR)).then((box) =>
      createRegistry({ analytics: platform.analytics, clock: platform.clock, box, maxPerOrg: platform.config.WEBHOOK_REGISTRATIONS_PER_ORG }),
    );
    registries.set(platform, r);
  }
  return r;
}

/**
 * Workflow webhooks (Document 3 part B, CONTRACTS.md 7): registrations, the catch-all address and
 * event intake over HTTP; the `webhooks` role runs the intake consumer of `workflow.events` (fan-out
 * into `webhook.deliveries`), the delivery worker pool and the durable retry schedule.
 */
export const webhooksService: ServiceModule = {
  name: 'webhooks',
  topics: [
    { topic: WORKFLOW_EVENTS_TOPIC, partitions: 3 },
    { topic: DELIVERIES_TOPIC, partitions: 6 },
    { topic: OTP_TOPIC, partitions: 1 },
  ],
  migrations: [registryMigration, deliveryLogMigration, approvalsMigration, sdkUsersMigration],
  async create({ platform, keys }) {
    const registry = await registryOf(platform);
    const deliveries = createDeliveryLog(platform.analytics, (err) => platform.log.error({ err }, 'webhook delivery log write failed; retrying'));
    const approvals = createApprovals(platform);
    const fanOut = createFanOut({ platform, registry, observers: [approvals.observer] });
    const users = createSdkUsers(platform);
    const config = platform.config;
    const board = createCircuitBoard(platform.windows);
    return {
      router: webhooksRouter({ platform, keys, registry, deliveries, fanOut, board, extra: approvalRoutes({ platform, approvals, users, fanOut }) }),
      lanes: [eventsLane({ platform, fanOut })],
      workers: [
        { role: 'webhooks', name: 'webhooks.intake', start: () => startIntakeStage(platform, fanOut) },
        {
          role: 'webhooks',
          name: 'webhooks.deliveries',
          start: () =>
            startDeliveryWorker({
              platform,
              registry,
              log: deliveries,
              sender: createSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS }),
              schedule: createRetrySchedule(platform),
              health: createHealth({ openMs: config.WEBHOOK_CIRCUIT_OPEN_MS, disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS, probeMs: config.WEBHOOK_TIMEOUT_MS }),
              board,
            }),
        },
      ],
    };
  },
};

/**
 * Creates or updates an organization's registration for one event programmatically (the risk
 * service's /v1/webhooks/config configures its risk.high / risk.low targets through it). The body
 * is a registration body (POST /webhooks), validated the same way; with `id`, a change of that
 * registration. Throws a ZodError on a bad body; answers the registration as the API presents it.
 */
export async function upsertWebhook(platform: Platform, orgId: string, body: unknown, id?: string) {
  const registry = await registryOf(platform);
  const now = platform.clock.now();
  if (id !== undefined) {
    const updated = await registry.update(orgId, id, registrationPatch.parse(body));
    return updated ? presentRegistration(updated, now) : undefined;
  }
  return presentRegistration(await registry.create(orgId, registrationBody.parse(body)), now);
}

/** The risk check's webhook configuration (/v1/webhooks/config) as the delivery side needs it. */
export interface RiskWebhookTarget {
  url: string;
  /** '' when none was given: deliveries then go unsigned. */
  secret: string;
  events: readonly ('risk.high' | 'risk.low')[];
  enabled: boolean;
}

/**
 * Makes an organization's risk.high / risk.low registrations follow its risk webhook
 * configuration: one registration per configured event at the configured URL, signed with its
 * secret. The configuration owns the registrations of those events at its current or previous URL;
 * those it no longer wants are removed, and registrations made through POST /webhooks elsewhere
 * are left alone. Throws a ZodError when the target is not a valid registration.
 */
const RISK_MANAGED = 'risk_webhook_config';

export async function syncRiskWebhooks(platform: Platform, orgId: string, previousUrl: string | undefined, target: RiskWebhookTarget): Promise<void> {
  const registry = await registryOf(platform);
  const secret = target.secret === '' ? null : target.secret;
  for (const event of ['risk.high', 'risk.low'] as const) {
    const owned = (await registry.forEvent(orgId, event)).filter((r) => r.url === target.url || r.url === previousUrl);
    const wanted = target.enabled && target.events.includes(event);
    const [keep, ...extra] = wanted ? owned : [];
    for (const r of wanted ? extra : owned) await registry.remove(orgId, r.id);
    if (!wanted) continue;
    if (keep) await registry.update(orgId, keep.id, { ...registrationPatch.parse({ url: target.url, secret, enabled: true }), managed_by: RISK_MANAGED });
    else await registry.create(orgId, registrationBody.parse({ event, url: target.url, ...(secret ? { secret } : {}) }), RISK_MANAGED);
  }
}
