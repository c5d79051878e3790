import path from 'node:path';
import type { Platform } from '../infra/platform.js';
import { servesHttp, type ServiceModule } from './types.js';
import { GeoData } from '../infra/risk/geo.js';
import { IpLists } from '../infra/risk/ip-lists.js';
import { parseListSources, updateIpLists } from '../infra/risk/update-lists.js';
import { loadDisposableDomains } from '../infra/risk/email-domains.js';
import { scheduleReload } from '../infra/sanctions/scheduler.js';
import type { PhoneProvider } from '../domain/risk/phone.js';
import { workflowEventSink, type RiskEventSink } from '../domain/risk/events.js';
import { OTP_TOPIC, topicNotifier, type OtpNotifier } from '../domain/risk/notifier.js';
import { riskMigration } from '../pipelines/risk/migrations.js';
import { RISK_CHECKS_TOPIC } from '../pipelines/risk/record.js';
import { startRiskRecordsStage } from '../pipelines/risk/records-stage.js';
import { createChecker } from '../pipelines/risk/checker.js';
import { WeightsStore } from '../pipelines/risk/weights-store.js';
import { WhitelistStore } from '../pipelines/risk/whitelist-store.js';
import { WebhookConfigStore, type WebhookConfig } from '../pipelines/risk/webhook-config-store.js';
import { createChallenges } from '../pipelines/risk/challenges.js';
import { createEntityData } from '../pipelines/risk/entity-data.js';
import { riskCheckLanes, riskRouter } from '../api/risk/routes.js';

export interface RiskServiceOptions {
  /** HLR / SIM-swap provider; without one, those signals are off (no answer is made up). */
  phoneProvider?: PhoneProvider;
  /** Where OTP codes go; default the `notifications.otp` topic. */
  notifier?: OtpNotifier;
  /** Where risk.high / risk.low go; default the `workflow.events` topic. */
  events?: RiskEventSink;
  /** Applies a new /v1/webhooks/config to the webhook deliveries (services/index.ts wires it). */
  onWebhookConfig?: (platform: Platform, orgId: string, previousUrl: string | undefined, config: WebhookConfig) => Promise<void>;
}

/**
 * Risk check (Document 1 part C): checks, whitelist, feedback, challenges, scoring configuration,
 * sessions, GDPR and the risk webhook configuration over HTTP; the `risk.checks` topic drained
 * into ClickHouse by the `risk` role. IP lists are read from RISK_LISTS_DIR at start and on
 * RISK_LISTS_RELOAD_CRON, after downloading RISK_LISTS_SOURCES; geolocation and ASN data come with
 * the npm data packages.
 *
 * State per user, IP, email, device and whitelisted identifier lives in the window store
 * (domain/risk/state.ts has the layout and its bounds; bench/results/risk.md the measured bytes).
 */
export function riskService(opts: RiskServiceOptions = {}): ServiceModule {
  return {
    name: 'risk',
    topics: [
      { topic: RISK_CHECKS_TOPIC, partitions: 6 },
      { topic: OTP_TOPIC, partitions: 3 },
      // workflow.events is declared by the workflow webhooks service, which consumes it.
    ],
    migrations: [riskMigration],
    async create({ platform, keys, role }) {
      const workers = [{ role: 'risk' as const, name: 'risk-records', start: () => startRiskRecordsStage(platform) }];
      if (!servesHttp(role)) return { workers };
      const parts = await createRiskParts(platform, opts);
      return {
        router: riskRouter({ platform, keys, ...parts }),
        lanes: riskCheckLanes({ platform, check: parts.check }),
        health: { risk_lists: () => parts.lists.health() },
        workers,
        close: async () => parts.schedule.stop(),
      };
    },
  };
}

/**
 * The HTTP side's parts: IP data and lists (on RISK_LISTS_RELOAD_CRON the RISK_LISTS_SOURCES are
 * downloaded, then the lists read again; at start only the files there are read), stores, the checker.
 */
export async function createRiskParts(platform: Platform, opts: RiskServiceOptions = {}) {
  const config = platform.config;
  const publish = async (topic: string, key: string, value: unknown) => platform.bus.send(topic, [{ key, value: await platform.codec.encode(topic, value) }]);
  const log = platform.log.child({ service: 'risk' });
  const geo = new GeoData();
  const listsDir = path.resolve(config.RISK_LISTS_DIR);
  const sources = parseListSources(config.RISK_LISTS_SOURCES);
  const lists = new IpLists(listsDir, log);
  await lists.reload();
  // Reading the IPv4 data takes a second or two; checks that come sooner wait for it.
  geo.warm(4).catch((err: unknown) => platform.log.error({ err }, 'IP geolocation data could not be read'));
  const schedule = scheduleReload(async () => {
    if (sources.length > 0) for (const r of await updateIpLists(listsDir, sources)) log[r.status === 'updated' ? 'info' : 'warn']({ list: r.kind, detail: r.detail }, `risk IP list download ${r.status}`);
    await lists.reload();
  }, config.RISK_LISTS_RELOAD_CRON);
  const weights = new WeightsStore(platform.analytics, platform.clock, log);
  const whitelist = new WhitelistStore(platform.analytics, platform.windows, platform.clock);
  const onWebhookConfig = opts.onWebhookConfig;
  const webhooks = new WebhookConfigStore(platform.analytics, platform.clock, log, onWebhookConfig && ((org, previousUrl, c) => onWebhookConfig(platform, org, previousUrl, c)));
  const check = createChecker({
    platform,
    geo,
    lists,
    isDisposableDomain: loadDisposableDomains(),
    phoneProvider: opts.phoneProvider,
    weights,
    whitelist,
    webhooks,
    events:
      opts.events ??
      workflowEventSink(async (topic, messages) =>
        platform.bus.send(topic, await Promise.all(messages.map(async (m) => ({ key: m.key, value: await platform.codec.encode(topic, m.value) })))),
      ),
    highRiskCountries: new Set(config.RISK_HIGH_RISK_COUNTRIES),
  });
  const challenges = createChallenges({ platform, notifier: opts.notifier ?? topicNotifier(publish), devEcho: config.OTP_DEV_ECHO });
  return { check, weights, whitelist, webhooks, challenges, entities: createEntityData({ platform, whitelist }), schedule, lists };
}
