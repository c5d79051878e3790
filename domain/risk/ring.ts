import type { Signal } from './signal.js';

/**
 * Fraud ring indicators: one device used by several users, many users behind one IP within a day,
 * and devices added to an account in quick succession. The ring score is 0..100.
 */
export interface RingFacts {
  /** Distinct users seen on this device, this one included. */
  deviceUsers: number;
  /** Distinct users seen from this IP within 24 hours, this one included. */
  ipUsers24h: number;
  deviceAddedWithin24h: boolean;
  rapidDeviceAddition: boolean;
}

/** A device shared by this many users is suspicious sharing. */
export const SHARED_DEVICE_USERS = 3;
export const HIGH_RING_SCORE = 70;
export const MODERATE_RING_SCORE = 40;

export function ringScore(f: RingFacts): number {
  const shared = 25 * Math.max(0, f.deviceUsers - 1);
  const crowdedIp = 10 * Math.max(0, f.ipUsers24h - 2);
  return Math.min(100, shared + Math.min(30, crowdedIp) + (f.deviceAddedWithin24h ? 20 : 0) + (f.rapidDeviceAddition ? 20 : 0));
}

export function ringSignals(f: RingFacts): { score: number; signals: Signal[] } {
  const score = ringScore(f);
  const signals: Signal[] = [];
  if (f.deviceUsers >= SHARED_DEVICE_USERS) signals.push({ key: 'fraud_ring.device_sharing', reason: 'Suspicious device sharing pattern' });
  if (score >= HIGH_RING_SCORE) signals.push({ key: 'fraud_ring.high', reason: `High fraud ring score: ${score}/100` });
  else if (score >= MODERATE_RING_SCORE) signals.push({ key: 'fraud_ring.moderate', reason: 'Moderate fraud ring indicators detected' });
  return { score, signals };
}
