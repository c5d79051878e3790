import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { lru } from 'tiny-lru';
import type { Platform } from '../../infra/platform.js';
import type { GeoData } from '../../infra/risk/geo.js';
import type { IpLists } from '../../infra/risk/ip-lists.js';
import { ipFacts } from '../../infra/risk/ip-intel.js';
import type { Outcome } from '../../domain/risk/actions.js';
import type { CheckRequest, WhitelistType } from '../../schemas/http/risk.js';
import { assess, baselineSessions, type Assessment } from '../../domain/risk/assess.js';
import { behaviorFacts } from '../../domain/risk/behavior.js';
import { DEFAULT_SUSPICIOUS_TLDS } from '../../domain/risk/email.js';
import { eventFor, type RiskEventSink } from '../../domain/risk/events.js';
import { ipReputation, networkKind, type IpFacts } from '../../domain/risk/ip.js';
import { phoneFacts, type CarrierLookup, type PhoneFacts, type PhoneProvider } from '../../domain/risk/phone.js';
import { ACTION_PRIORITY, confidence, score } from '../../domain/risk/score.js';
import { localHour } from '../../domain/risk/session.js';
import { deviceIdOf, planReads, planUpdates, type Keys } from '../../domain/risk/state.js';
import { RISK_CHECKS_TOPIC, type CheckRecord } from './record.js';
import type { WeightsStore } from './weights-store.js';
import type { WhitelistStore } from './whitelist-store.js';
import type { WebhookConfigStore } from './webhook-config-store.js';
import type { WriteOptions } from '../../infra/windows/types.js';

export interface CheckerDeps {
  platform: Platform;
  geo: GeoData;
  lists: IpLists;
  isDisposableDomain(domain: string): boolean;
  phoneProvider?: PhoneProvider;
  weights: WeightsStore;
  whitelist: WhitelistStore;
  webhooks: WebhookConfigStore;
  events: RiskEventSink;
  /** The deployment's high-risk countries (an organization's weights may override them). */
  highRiskCountries: ReadonlySet<string>;
}

export interface CheckResponse {
  request_id: string;
  decision: { outcome: Outcome; score: number; confidence: number; reasons: string[]; challenge_recommended: boolean };
  metadata: { processing_time_ms: number; baseline_sessions: number; device_id?: string; weights_version: number };
  details?: Record<string, unknown>;
}

export interface CheckResult {
  response: CheckResponse;
  /** The glass-box view (eval/check). */
  evaluation: Record<string, unknown>;
}

/** How long a request id is remembered in the window store, bridging the pipeline's lag for feedback and challenges. */
export const RECENT_REQUEST_MS = 3_600_000;
export const RECENT_NAMESPACE = 'risk.recent';
/** Phone numbers whose parse is kept: a number recurs with its user, and libphonenumber's parse was a tenth of a check's CPU. */
const PHONE_CACHE_SIZE = 50_000;
/** Window-store writes of a check: committed at once, made durable alongside the log append. */
const DEFERRED: WriteOptions = { sync: false };

/**
 * One risk check: look up what the request names (IP lists and geolocation, phone metadata,
 * carrier data when configured), read the user's, IP's, email's and device's state, update it,
 * score, and publish the check (and its webhook event) before answering.
 */
export function createChecker(deps: CheckerDeps) {
  const { platform } = deps;
  const windows = platform.windows;
  const send = async (topic: string, key: string, value: unknown) => platform.bus.send(topic, [{ key, value: await platform.codec.encode(topic, value) }]);
  const phones = lru<PhoneFacts>(PHONE_CACHE_SIZE);
  const phoneOf = (e164: string): PhoneFacts => {
    const known = phones.get(e164);
    if (known) return known;
    const facts = phoneFacts(e164);
    phones.set(e164, facts);
    return facts;
  };

  async function lookups(req: CheckRequest): Promise<{ ip: IpFacts | null; phone: PhoneFacts | null; carrier: CarrierLookup | null }> {
    const [ip, carrier] = await Promise.all([
      req.ip ? ipFacts(req.ip, deps.geo, deps.lists) : null,
      req.phone && deps.phoneProvider ? deps.phoneProvider.lookup(req.phone) : null,
    ]);
    return { ip, phone: req.phone ? phoneOf(req.phone) : null, carrier };
  }

  return async function check(orgId: string, req: CheckRequest): Promise<CheckResult> {
    const started = performance.now();
    const now = platform.clock.now();
    const requestId = randomUUID();
    const { context } = req;
    const [weights, found] = await Promise.all([deps.weights.get(orgId), lookups(req)]);
    const config = weights.config;
    const deviceId = deviceIdOf(req.device);
    const hour = localHour(context.timestamp ? Date.parse(context.timestamp) : now, req.device?.fingerprint?.timezone);
    const keys: Keys = {
      org: orgId,
      userId: context.user_id,
      sessionId: context.session_id ?? requestId,
      ip: req.ip,
      email: req.email,
      deviceId,
      country: found.ip?.country ?? null,
      hour,
    };
    const identifiers: { type: WhitelistType; identifier: string }[] = [];
    if (context.user_id) identifiers.push({ type: 'user', identifier: context.user_id });
    if (req.email) identifiers.push({ type: 'email', identifier: req.email.toLowerCase() });
    if (req.ip) identifiers.push({ type: 'ip', identifier: req.ip.toLowerCase() });
    if (req.phone) identifiers.push({ type: 'phone', identifier: req.phone });
    if (deviceId) identifiers.push({ type: 'device_fingerprint', identifier: deviceId });

    const reads = planReads(keys, now, config.velocity.window_minutes);
    const whitelist = deps.whitelist.lookup(orgId, identifiers);
    const values = await windows.readMany([...reads.plans, ...whitelist.reads]);
    const history = reads.parse(values);
    const whitelisted = whitelist.match(values.slice(reads.plans.length));
    const located = found.ip && found.ip.latitude !== null && found.ip.longitude !== null ? { at: now, lat: found.ip.latitude, lon: found.ip.longitude } : null;

    const behavior = behaviorFacts(req);
    const updates = planUpdates(keys, now, history, behavior.facts.features, located);
    // Committed, not yet on disk: the state's fsync runs while the check is scored and logged, and
    // the answer waits for both below (one after the other, they made most of the tail).
    const [applied] = await Promise.all([windows.apply(updates.requests, DEFERRED), windows.claim(orgId, RECENT_NAMESPACE, [requestId], RECENT_REQUEST_MS, DEFERRED)]);
    const newOf = (i: number | null) => i !== null && applied[i] === true;

    const assessment = assess({
      req,
      at: now,
      hour,
      config,
      highRiskCountries: config.high_risk_countries ? new Set(config.high_risk_countries) : deps.highRiskCountries,
      ip: found.ip,
      email: { isDisposableDomain: deps.isDisposableDomain, suspiciousTlds: DEFAULT_SUSPICIOUS_TLDS },
      phone: found.phone,
      carrier: found.carrier,
      history,
      behavior,
      fix: located,
      newUserOnDevice: newOf(updates.newUserOnDevice),
      newUserOnIp: newOf(updates.newUserOnIp),
    });
    const scored = score(assessment.signals, config, context.action);
    const decision = whitelisted
      ? { outcome: 'allow' as const, score: 0, reasons: [`Whitelisted ${whitelisted.replace('_', ' ')}`], challenge_recommended: false }
      : { outcome: scored.outcome, score: scored.score, reasons: [...new Set(scored.signals.map((s) => s.reason))], challenge_recommended: scored.challengeRecommended };
    const inputs = [req.email, req.ip, req.phone, req.device, req.behavior, req.behavioral].filter((x) => x !== undefined).length;
    const sessions = baselineSessions(history, newOf(updates.newSession));

    const response: CheckResponse = {
      request_id: requestId,
      decision: { ...decision, confidence: confidence(inputs, sessions >= 3, decision.score, config.thresholds) },
      metadata: { processing_time_ms: 0, baseline_sessions: sessions, ...(deviceId ? { device_id: deviceId } : {}), weights_version: weights.version },
    };
    if (req.expand) response.details = details(assessment, scored.signals, found, context.action, whitelisted);

    const record: CheckRecord = {
      kind: 'check',
      org_id: orgId,
      request_id: requestId,
      created_at: new Date(now).toISOString(),
      action: context.action,
      user_id: context.user_id ?? null,
      session_id: context.session_id ?? null,
      device_id: deviceId,
      email: req.email ?? null,
      ip: req.ip ?? null,
      phone: req.phone ?? null,
      country: found.ip?.country ?? null,
      outcome: response.decision.outcome,
      score: response.decision.score,
      reasons: response.decision.reasons,
      payload: { request: req, response: { ...response, metadata: { ...response.metadata } } },
    };
    const hook = await deps.webhooks.get(orgId);
    const event = hook?.enabled ? eventFor(decision.outcome, { reviewIsHigh: config.review_emits_high, subscribed: hook.events }) : null;
    await Promise.all([
      send(RISK_CHECKS_TOPIC, orgId, record),
      windows.synced(),
      event
        ? deps.events.emit([
            {
              org_id: orgId,
              event,
              payload: {
                request_id: requestId,
                outcome: decision.outcome,
                score: decision.score,
                reasons: decision.reasons,
                action: context.action,
                user_id: context.user_id ?? null,
                session_id: context.session_id ?? null,
                occurred_at: record.created_at,
              },
            },
          ])
        : undefined,
    ]);
    response.metadata.processing_time_ms = Math.round((performance.now() - started) * 100) / 100;
    return {
      response,
      evaluation: {
        eval_mode: true,
        decision: response.decision.outcome.toUpperCase(),
        risk_score: response.decision.score,
        signals: {
          biometrics: assessment.behavior.biometrics,
          stability_score: assessment.behavior.stability,
          entropy_score: assessment.behavior.entropy,
          reasoning: scored.signals.map((s) => `${s.reason} (+${s.points})`),
        },
        context: { ip_reputation: found.ip ? ipReputation(found.ip) : 'unknown', network: found.ip ? networkKind(found.ip) : 'unknown', baseline_sessions: sessions },
        original_response: response,
      },
    };
  };
}

function details(a: Assessment, signals: { key: string; reason: string; points: number }[], found: { ip: IpFacts | null; phone: PhoneFacts | null; carrier: CarrierLookup | null }, action: CheckRequest['context']['action'], whitelisted: WhitelistType | null) {
  return {
    signals: signals.map((s) => ({ key: s.key, reason: s.reason, points: s.points })),
    action_priority: ACTION_PRIORITY[action].priority,
    whitelisted: whitelisted,
    ip: found.ip,
    phone: found.phone ? { ...found.phone, carrier: found.carrier } : null,
    behavior: a.behavior,
    ...a.facts,
  };
}
