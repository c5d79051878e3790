import type { CheckRequest } from '../../schemas/http/risk.js';
import type { RiskAction } from './actions.js';
import { countryName } from './ip.js';
import type { Signal } from './signal.js';

/** What the window store knew of a user before this check (domain/risk/state.ts reads it). */
export interface UserHistory {
  /** Checks seen before (any session). */
  seen: boolean;
  firstSeen: number | null;
  /** Sessions seen before, and those that began within an hour of this check's local hour. */
  sessions: number;
  sessionsNearHour: number;
  deviceKnown: boolean;
  /** Distinct devices seen, and devices first seen within the last 24 hours. */
  devices: number;
  newDevices24h: number;
  lastNewDeviceAt: number | null;
  countryKnown: boolean;
}

const DAY_MS = 86_400_000;
/** Sessions needed before an hour of the day can be called unusual, and the share that is. */
const HOUR_HISTORY = 5;
const UNUSUAL_SHARE = 0.05;

/** Formatters per time zone: building one costs far more than formatting. Zone names are a finite set; the cap bounds junk. */
const hourFormats = new Map<string, Intl.DateTimeFormat | null>();
const MAX_ZONES = 1_000;

function hourFormat(timezone: string): Intl.DateTimeFormat | null {
  let f = hourFormats.get(timezone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone: timezone });
    } catch {
      f = null; // an unknown zone name: UTC
    }
    if (hourFormats.size < MAX_ZONES) hourFormats.set(timezone, f);
  }
  return f;
}

/** The hour of the day where the user is: the device's time zone when it sent a known one, else UTC. */
export function localHour(at: number, timezone: string | undefined): number {
  const f = timezone ? hourFormat(timezone) : null;
  return f ? Number(f.format(at)) : new Date(at).getUTCHours();
}

export interface SessionInput {
  at: number;
  action: RiskAction;
  hour: number;
  country: string | null;
  hasDevice: boolean;
}

export function sessionSignals(h: UserHistory | null, s: SessionInput): Signal[] {
  if (!h?.seen) return [];
  const out: Signal[] = [];
  if (s.hasDevice && !h.deviceKnown) out.push({ key: 'session.new_device', reason: 'New device detected' });
  if (s.country && !h.countryKnown) out.push({ key: 'session.new_country', reason: `New country: ${countryName(s.country)}` });
  if (h.sessions >= HOUR_HISTORY && h.sessionsNearHour / h.sessions < UNUSUAL_SHARE) {
    out.push({ key: 'session.unusual_time', reason: `Unusual time: ${String(s.hour).padStart(2, '0')}:00` });
  }
  if (s.action !== 'signup' && h.firstSeen !== null && s.at - h.firstSeen < DAY_MS) out.push({ key: 'session.new_account', reason: 'Account less than 1 day old' });
  return out;
}

const HEADLESS = /headless|phantomjs|selenium|webdriver|puppeteer|playwright|slimerjs|\bbot\b|crawler|spider|curl\/|python-requests|okhttp/i;

/** Anomalies a session shows by itself, named in the reason. */
export function sessionAnomalies(device: CheckRequest['device']): string[] {
  if (!device) return [];
  const out: string[] = [];
  if (device.user_agent !== undefined && HEADLESS.test(device.user_agent)) out.push('automation_user_agent');
  const screen = device.fingerprint?.screen;
  if (screen && ((screen.width !== undefined && (screen.width < 200 || screen.width > 16_384)) || (screen.height !== undefined && (screen.height < 200 || screen.height > 16_384)))) out.push('impossible_screen');
  if (screen?.colorDepth !== undefined && screen.colorDepth < 15) out.push('low_color_depth');
  const hw = device.fingerprint?.hardware;
  if (hw && (hw.cores === 0 || hw.memory === 0)) out.push('missing_hardware');
  if (device.fingerprint && device.fingerprint.canvas === '') out.push('blank_canvas');
  return out;
}

export function anomalySignals(patterns: string[]): Signal[] {
  return patterns.length > 0 ? [{ key: 'session.anomalies', reason: `Session anomalies: ${patterns.join(', ')}` }] : [];
}

/** Three devices new to a user within 24 hours is rapid device addition. */
export const RAPID_DEVICES_24H = 3;

export function deviceAdditionSignals(h: UserHistory | null, at: number, newDevice: boolean): Signal[] {
  if (!h?.seen || !newDevice) return [];
  const out: Signal[] = [];
  if (h.newDevices24h + 1 >= RAPID_DEVICES_24H) out.push({ key: 'continuous_auth.rapid_device_addition', reason: 'Rapid device addition detected' });
  if (h.devices >= 1 && h.lastNewDeviceAt !== null && at - h.lastNewDeviceAt < DAY_MS) {
    out.push({ key: 'fraud_ring.device_added_24h', reason: 'Device added within 24h of another (fraud ring pattern)' });
  }
  return out;
}

/** Velocity over the configured window: the busiest of user, IP, email and device, this check included. */
export function velocitySignals(counts: number[], maxRequests: number): Signal[] {
  const count = Math.max(0, ...counts);
  return count > maxRequests ? [{ key: 'velocity.abuse', reason: `Velocity exceeded (${count} requests)` }] : [];
}
