import type { CheckRequest, ScoringConfig } from '../../schemas/http/risk.js';
import { compareWithBaseline, established } from './baseline.js';
import type { BehaviorFacts } from './behavior.js';
import { emailSignals, type EmailFacts } from './email.js';
import { ipSignals, type IpFacts } from './ip.js';
import { phoneSignals, type CarrierLookup, type PhoneFacts } from './phone.js';
import { ringSignals } from './ring.js';
import { anomalySignals, deviceAdditionSignals, sessionAnomalies, sessionSignals, velocitySignals } from './session.js';
import type { Signal } from './signal.js';
import type { History } from './state.js';
import { travelSignals, type Fix } from './travel.js';

/** Everything one check learned, before scoring: what the service looked up and what the store held. */
export interface Evidence {
  req: CheckRequest;
  at: number;
  hour: number;
  config: ScoringConfig;
  highRiskCountries: ReadonlySet<string>;
  ip: IpFacts | null;
  email: EmailFacts;
  phone: PhoneFacts | null;
  carrier: CarrierLookup | null;
  history: History;
  /** behaviorFacts(req): computed once, before the state update that feeds the baseline. */
  behavior: { facts: BehaviorFacts; signals: Signal[] };
  fix: Fix | null;
  /** Answers of the once updates: this user is new to the device / to the IP today. */
  newUserOnDevice: boolean;
  newUserOnIp: boolean;
}

export interface Assessment {
  signals: Signal[];
  behavior: BehaviorFacts;
  facts: {
    velocity: number;
    travel_speed_kmh: number | null;
    ring_score: number;
    baseline_deviation: number | null;
    session_anomalies: string[];
  };
}

/** Every signal of one check; each group is pure and tested on its own. */
export function assess(e: Evidence): Assessment {
  const { req, config, history: h } = e;
  const signals: Signal[] = [];
  if (e.ip) signals.push(...ipSignals(e.ip, e.highRiskCountries));
  if (req.email) signals.push(...emailSignals(req.email, e.email));
  if (e.phone) signals.push(...phoneSignals(e.phone, e.carrier));

  const behavior = e.behavior;
  if (config.features.behavioral_entropy) signals.push(...behavior.signals);

  const velocity = 1 + Math.max(h.user?.velocity ?? 0, h.ip?.velocity ?? 0, h.email?.velocity ?? 0, h.device?.velocity ?? 0);
  signals.push(...velocitySignals([velocity], config.velocity.max_requests));

  const travel = e.fix ? travelSignals(h.user?.lastFix ?? null, e.fix) : { signals: [], speedKmh: null };
  signals.push(...travel.signals);

  const country = e.ip?.country ?? null;
  // Only a device that says something about itself has an id (state.ts deviceIdOf).
  const hasDevice = req.device?.user_agent !== undefined || req.device?.fingerprint !== undefined;
  signals.push(...sessionSignals(h.user, { at: e.at, action: req.context.action, hour: e.hour, country, hasDevice }));
  const anomalies = sessionAnomalies(req.device);
  signals.push(...anomalySignals(anomalies));

  const newDevice = hasDevice && h.user !== null && h.user.seen && !h.user.deviceKnown;
  const additions = deviceAdditionSignals(h.user, e.at, newDevice);
  const baseline = h.user
    ? compareWithBaseline(h.user.baseline, behavior.facts.features, {
        behavioral: config.features.behavioral_entropy,
        continuous: config.features.continuous_auth,
        baselineDevice: h.user.baselineDevice,
      })
    : { signals: [], deviationScore: null };
  signals.push(...baseline.signals);
  if (config.features.continuous_auth) signals.push(...additions.filter((s) => s.key.startsWith('continuous_auth.')));

  const ring = ringSignals({
    deviceUsers: (h.device?.users ?? 0) + (e.newUserOnDevice ? 1 : 0),
    ipUsers24h: (h.ip?.users24h ?? 0) + (e.newUserOnIp ? 1 : 0),
    deviceAddedWithin24h: additions.some((s) => s.key === 'fraud_ring.device_added_24h'),
    rapidDeviceAddition: additions.some((s) => s.key === 'continuous_auth.rapid_device_addition'),
  });
  signals.push(...additions.filter((s) => s.key.startsWith('fraud_ring.')), ...ring.signals);

  return {
    signals,
    behavior: behavior.facts,
    facts: {
      velocity,
      travel_speed_kmh: travel.speedKmh,
      ring_score: ring.score,
      baseline_deviation: baseline.deviationScore,
      session_anomalies: anomalies,
    },
  };
}

/** Sessions the user's baseline holds (metadata.baseline_sessions), this one included while it is being built. */
export function baselineSessions(h: History, newSession: boolean): number {
  const b = h.user?.baseline;
  if (!b) return 0;
  return established(b) ? b.sessions : b.sessions + (newSession ? 1 : 0);
}
