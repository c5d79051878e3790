import { describe, expect, it } from 'vitest';
import { compareWithBaseline, deviations, type Baseline } from './baseline.js';

const baseline = (sessions: number): Baseline => ({
  sessions,
  sums: { mouseSpeed: { sum: 3, n: 3 }, keyInterval: { sum: 600, n: 3 }, sessionMs: { sum: 90_000, n: 3 } },
});
const on = { behavioral: true, continuous: true, baselineDevice: true };
const reasons = (b: Baseline, f: Parameters<typeof deviations>[1], opts = on) => compareWithBaseline(b, f, opts).signals.map((s) => s.reason);

describe('baselines', () => {
  it('compares nothing until 3 sessions established the baseline', () => {
    expect(reasons(baseline(2), { mouseSpeed: 9 })).toEqual([]);
  });

  it('deviation in % of the baseline mean', () => {
    expect(deviations(baseline(3), { mouseSpeed: 2.5, keyInterval: 100, sessionMs: 30_000 })).toEqual({ mouseSpeed: 150, keyInterval: 50, sessionMs: 0 });
  });

  it('High mouse / keystroke / session deviation, biometric deviation and low consistency', () => {
    const r = reasons(baseline(3), { mouseSpeed: 3, keyInterval: 500, sessionMs: 90_000 });
    expect(r).toEqual([
      'High mouse deviation: 200% from baseline',
      'High keystroke deviation: 150% from baseline',
      'High session deviation: 200% from baseline',
      'Low behavioral consistency: 0%',
      'Biometric deviation (score: 100)',
    ]);
  });

  it('a session like the baseline raises nothing', () => {
    expect(reasons(baseline(3), { mouseSpeed: 1.1, keyInterval: 190, sessionMs: 33_000 })).toEqual([]);
  });

  it('Behavioral divergence across devices: a device outside the baseline behaving differently', () => {
    const f = { mouseSpeed: 2, keyInterval: 400 };
    expect(reasons(baseline(3), f, { ...on, baselineDevice: false })).toContain('Behavioral divergence across devices');
    expect(reasons(baseline(3), f)).not.toContain('Behavioral divergence across devices');
  });

  it('the feature switches gate their groups', () => {
    const f = { mouseSpeed: 3, keyInterval: 500 };
    expect(reasons(baseline(3), f, { ...on, continuous: false })).toEqual(['Biometric deviation (score: 100)']);
    expect(reasons(baseline(3), f, { ...on, behavioral: false }).some((r) => r.startsWith('Biometric'))).toBe(false);
  });
});
