import { describe, expect, it } from 'vitest';
import { UNKNOWN_IP, countryName, ipReputation, ipSignals, networkKind, type IpFacts } from './ip.js';

const highRisk = new Set(['KP', 'IR']);
const reasons = (f: Partial<IpFacts>) => ipSignals({ ...UNKNOWN_IP, country: 'DE', ...f }, highRisk).map((s) => s.reason);

describe('IP signals', () => {
  it.each([
    ['Tor exit node detected', { tor: true }],
    ['VPN detected', { vpn: true }],
    ['Proxy detected', { proxy: true }],
    ['Datacenter IP', { datacenter: true }],
    ['Known fraud IP', { knownFraud: true }],
    ['High-risk country: North Korea', { country: 'KP' }],
    ['High-risk country: Iran', { country: 'IR' }],
  ] as [string, Partial<IpFacts>][])('%s', (reason, f) => {
    expect(reasons(f)).toEqual([reason]);
  });

  it('a clean, located address raises nothing', () => {
    expect(reasons({})).toEqual([]);
    expect(reasons({ country: null })).toEqual([]);
  });

  it('names countries in English', () => {
    expect(countryName('GB')).toBe('United Kingdom');
  });

  it('describes reputation and network for the glass box', () => {
    expect(ipReputation({ ...UNKNOWN_IP, knownFraud: true })).toBe('malicious');
    expect(ipReputation({ ...UNKNOWN_IP, vpn: true })).toBe('suspicious');
    expect(ipReputation({ ...UNKNOWN_IP, country: 'DE' })).toBe('clean');
    expect(networkKind({ ...UNKNOWN_IP, tor: true, datacenter: true })).toBe('tor');
    expect(networkKind({ ...UNKNOWN_IP, datacenter: true })).toBe('datacenter');
    expect(networkKind({ ...UNKNOWN_IP, asn: 3320 })).toBe('residential');
  });
});
