import { describe, expect, it } from 'vitest';
import { scoringConfigSchema } from '../../schemas/http/risk.js';
import { confidence, outcomeOf, score } from './score.js';
import type { Signal } from './signal.js';

const config = scoringConfigSchema.parse({});
const sig = (key: Signal['key']): Signal => ({ key, reason: key });

describe('score and outcome', () => {
  it('maps scores to outcomes: allow 0-39, review 40-79, block 80-100', () => {
    const t = config.thresholds;
    expect([0, 39, 40, 79, 80, 100].map((s) => outcomeOf(s, t))).toEqual(['allow', 'allow', 'review', 'review', 'block', 'block']);
  });

  it('a signal alone scores its points; signals combine without passing 100', () => {
    expect(score([sig('ip.tor')], config, 'default').score).toBe(60);
    expect(score([sig('ip.tor'), sig('ip.tor')], config, 'default').score).toBe(84);
    expect(score([sig('ip.known_fraud'), sig('ip.tor'), sig('email.disposable'), sig('behavior.bot')], config, 'payment').score).toBe(100);
    expect(score([], config, 'payment')).toMatchObject({ score: 0, outcome: 'allow' });
  });

  it('payment and password_reset weigh more than profile_update', () => {
    const at = (action: 'payment' | 'password_reset' | 'login' | 'profile_update') => score([sig('ip.vpn'), sig('email.suspicious_tld')], config, action).score;
    expect(at('payment')).toBe(at('password_reset'));
    expect(at('payment')).toBeGreaterThan(at('login'));
    expect(at('login')).toBeGreaterThan(at('profile_update'));
  });

  it('weights come from the configuration, thresholds too', () => {
    const custom = scoringConfigSchema.parse({ ip: { tor: 90 }, thresholds: { block: 95, review: 50, challenge: 70 } });
    expect(score([sig('ip.tor')], custom, 'default')).toMatchObject({ score: 90, outcome: 'review', challengeRecommended: true });
    expect(score([sig('ip.vpn')], custom, 'default').score).toBe(30);
  });

  it('strength scales a signal', () => {
    expect(score([{ key: 'behavior.bot', reason: 'b', strength: 0.5 }], config, 'default').score).toBe(35);
  });

  it('refuses thresholds out of order', () => {
    expect(scoringConfigSchema.safeParse({ thresholds: { review: 60, challenge: 50, block: 80 } }).success).toBe(false);
    expect(scoringConfigSchema.safeParse({ ip: { tor: 101 } }).success).toBe(false);
    expect(scoringConfigSchema.safeParse({ ip: { unknown: 1 } }).success).toBe(false);
  });

  it('confidence grows with evidence and distance from a threshold', () => {
    expect(confidence(6, true, 0, config.thresholds)).toBeGreaterThan(confidence(1, false, 0, config.thresholds));
    expect(confidence(3, false, 0, config.thresholds)).toBeGreaterThan(confidence(3, false, 41, config.thresholds));
    expect(confidence(6, true, 0, config.thresholds)).toBeLessThanOrEqual(1);
  });
});
