import { describe, expect, it } from 'vitest';
import { anomalySignals, deviceAdditionSignals, localHour, sessionAnomalies, sessionSignals, velocitySignals, type UserHistory } from './session.js';

const T = Date.UTC(2030, 0, 10, 3, 30);
const history = (h: Partial<UserHistory> = {}): UserHistory => ({
  seen: true,
  firstSeen: T - 30 * 86_400_000,
  sessions: 20,
  sessionsNearHour: 10,
  deviceKnown: true,
  devices: 1,
  newDevices24h: 0,
  lastNewDeviceAt: T - 30 * 86_400_000,
  countryKnown: true,
  ...h,
});
const input = { at: T, action: 'login' as const, hour: 3, country: 'FR', hasDevice: true };
const reasons = (h: UserHistory | null, s = input) => sessionSignals(h, s).map((x) => x.reason);

describe('session and device signals', () => {
  it('a known user on a known device, country and hour raises nothing; an unknown user neither', () => {
    expect(reasons(history())).toEqual([]);
    expect(reasons(null)).toEqual([]);
  });

  it.each([
    ['New device detected', { deviceKnown: false }],
    ['New country: France', { countryKnown: false }],
    ['Unusual time: 03:00', { sessionsNearHour: 0 }],
    ['Account less than 1 day old', { firstSeen: T - 3_600_000 }],
  ] as [string, Partial<UserHistory>][])('%s', (reason, h) => {
    expect(reasons(history(h))).toEqual([reason]);
  });

  it('an hour is unusual only with enough history', () => {
    expect(reasons(history({ sessions: 4, sessionsNearHour: 0 }))).toEqual([]);
  });

  it('a signup is not a young account', () => {
    expect(reasons(history({ firstSeen: T - 1000 }), { ...input, action: 'signup' as never })).toEqual([]);
  });

  it('local hour follows the device time zone', () => {
    expect(localHour(T, undefined)).toBe(3);
    expect(localHour(T, 'Asia/Tokyo')).toBe(12);
    expect(localHour(T, 'Not/AZone')).toBe(3);
  });

  it('Session anomalies: {patterns}', () => {
    const p = sessionAnomalies({ user_agent: 'Mozilla/5.0 HeadlessChrome/120', fingerprint: { screen: { width: 0, height: 0, colorDepth: 8 }, hardware: { cores: 0 } } });
    expect(anomalySignals(p).map((s) => s.reason)).toEqual(['Session anomalies: automation_user_agent, impossible_screen, low_color_depth, missing_hardware']);
    expect(sessionAnomalies({ user_agent: 'Mozilla/5.0 (Macintosh) Safari/605', fingerprint: { screen: { width: 1440, height: 900, colorDepth: 24 }, hardware: { cores: 8, memory: 8 } } })).toEqual([]);
  });

  it('Rapid device addition detected and Device added within 24h of another', () => {
    const r = deviceAdditionSignals(history({ newDevices24h: 2, lastNewDeviceAt: T - 3_600_000 }), T, true).map((s) => s.reason);
    expect(r).toEqual(['Rapid device addition detected', 'Device added within 24h of another (fraud ring pattern)']);
    expect(deviceAdditionSignals(history(), T, true)).toEqual([]);
    expect(deviceAdditionSignals(history({ newDevices24h: 5, lastNewDeviceAt: T }), T, false)).toEqual([]);
  });

  it('Velocity exceeded ({count} requests)', () => {
    expect(velocitySignals([31, 4], 30).map((s) => s.reason)).toEqual(['Velocity exceeded (31 requests)']);
    expect(velocitySignals([30], 30)).toEqual([]);
  });
});
