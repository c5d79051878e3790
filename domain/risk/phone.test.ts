import { describe, expect, it } from 'vitest';
import { phoneFacts, phoneSignals, type CarrierLookup } from './phone.js';

const reasons = (e164: string, carrier: CarrierLookup | null = null) => phoneSignals(phoneFacts(e164), carrier).map((s) => s.reason);

describe('phone signals', () => {
  it('Invalid phone number format: a number no plan allocates', () => {
    expect(reasons('+10000000000')).toContain('Invalid phone number format');
    expect(reasons('+447911123456')).not.toContain('Invalid phone number format');
  });

  it('VoIP number detected: UK 056 numbers are VoIP, 07 numbers mobile', () => {
    expect(phoneFacts('+445612345678').type).toBe('VOIP');
    expect(reasons('+445612345678')).toContain('VoIP number detected');
    expect(reasons('+447911123456')).not.toContain('VoIP number detected');
  });

  it('without a carrier-data provider, no HLR or SIM swap reason is made up', () => {
    expect(reasons('+447911123456')).toEqual([]);
  });

  it('Phone number validation failed (HLR)', () => {
    expect(reasons('+447911123456', { reachable: false })).toEqual(['Phone number validation failed (HLR)']);
    expect(reasons('+447911123456', { reachable: true })).toEqual([]);
  });

  it('Recently ported number (SIM swap risk): within 30 days', () => {
    expect(reasons('+447911123456', { reachable: true, portedDaysAgo: 12 })).toEqual(['Recently ported number (SIM swap risk)']);
    expect(reasons('+447911123456', { reachable: true, portedDaysAgo: 200 })).toEqual([]);
  });

  it('SIM swap detected ({risk} risk, {days} days ago)', () => {
    expect(reasons('+447911123456', { reachable: true, simSwap: { risk: 'high', daysAgo: 2 } })).toEqual(['SIM swap detected (high risk, 2 days ago)']);
    expect(reasons('+447911123456', { reachable: true, simSwap: { risk: 'low', daysAgo: 90 } })).toEqual([]);
  });
});
