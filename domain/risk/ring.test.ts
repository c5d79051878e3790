import { describe, expect, it } from 'vitest';
import { ringSignals } from './ring.js';

const base = { deviceUsers: 1, ipUsers24h: 1, deviceAddedWithin24h: false, rapidDeviceAddition: false };
const reasons = (f: Partial<typeof base>) => ringSignals({ ...base, ...f }).signals.map((s) => s.reason);

describe('fraud ring', () => {
  it('one user on one device is no ring', () => {
    expect(ringSignals(base)).toEqual({ score: 0, signals: [] });
  });

  it('Moderate fraud ring indicators detected', () => {
    expect(reasons({ deviceUsers: 2, deviceAddedWithin24h: true })).toEqual(['Moderate fraud ring indicators detected']);
  });

  it('Suspicious device sharing pattern and High fraud ring score: {score}/100', () => {
    expect(reasons({ deviceUsers: 4 })).toEqual(['Suspicious device sharing pattern', 'High fraud ring score: 75/100']);
    expect(ringSignals({ deviceUsers: 9, ipUsers24h: 20, deviceAddedWithin24h: true, rapidDeviceAddition: true }).score).toBe(100);
  });
});
