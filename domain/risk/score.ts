import type { ScoringConfig } from '../../schemas/http/risk.js';
import type { Outcome, RiskAction } from './actions.js';
import { pointsOf, type Signal } from './signal.js';

/** Action priorities of Document 1: critical actions weigh more, so the same signals score higher. */
export const ACTION_PRIORITY: Record<RiskAction, { priority: 'critical' | 'high' | 'medium' | 'low'; factor: number }> = {
  payment: { priority: 'critical', factor: 1.2 },
  password_reset: { priority: 'critical', factor: 1.2 },
  signup: { priority: 'high', factor: 1.1 },
  login: { priority: 'high', factor: 1.1 },
  profile_update: { priority: 'medium', factor: 1 },
  default: { priority: 'low', factor: 1 },
};

export interface ScoredSignal extends Signal {
  points: number;
}

export interface Scored {
  score: number;
  outcome: Outcome;
  challengeRecommended: boolean;
  signals: ScoredSignal[];
}

/**
 * Signals combine like independent probabilities: a signal of p points alone scores p, two of 50
 * score 75, and no sum passes 100. The action's factor then scales the result (capped at 100).
 * Scores are integers, so an outcome boundary is exact.
 */
export function score(signals: Signal[], config: ScoringConfig, action: RiskAction): Scored {
  const scored = signals.map((s) => ({ ...s, points: Math.round(pointsOf(config, s.key) * (s.strength ?? 1) * 10) / 10 }));
  const clean = scored.reduce((keep, s) => keep * (1 - Math.min(100, s.points) / 100), 1);
  const value = Math.min(100, Math.round(100 * (1 - clean) * ACTION_PRIORITY[action].factor));
  const outcome = outcomeOf(value, config.thresholds);
  return { score: value, outcome, challengeRecommended: outcome !== 'block' && value >= config.thresholds.challenge, signals: scored };
}

/** allow below review, review below block, block from block (defaults: allow 0-39, review 40-79, block 80-100). */
export function outcomeOf(score: number, t: { review: number; block: number }): Outcome {
  if (score >= t.block) return 'block';
  if (score >= t.review) return 'review';
  return 'allow';
}

/**
 * Confidence grows with the evidence the request carried (each kind of input the caller sent, and
 * an established baseline), and with how far the score stands from the nearest threshold.
 */
export function confidence(inputs: number, baselineEstablished: boolean, value: number, t: { review: number; block: number }): number {
  const coverage = Math.min(1, (inputs + (baselineEstablished ? 1 : 0)) / 6);
  const margin = Math.min(1, Math.min(Math.abs(value - t.review), Math.abs(value - t.block)) / 20);
  return Math.round((0.4 + 0.35 * coverage + 0.24 * margin) * 100) / 100;
}
