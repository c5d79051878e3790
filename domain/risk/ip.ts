import type { Signal } from './signal.js';

/** What the IP lists and the geolocation data say of one address (infra/risk/ip-intel.ts finds them). */
export interface IpFacts {
  tor: boolean;
  vpn: boolean;
  proxy: boolean;
  /** On a datacenter list, or announced by a hosting network's ASN. */
  datacenter: boolean;
  knownFraud: boolean;
  /** ISO 3166-1 alpha-2, or null when the address is not located (private ranges). */
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  asn: number | null;
  asnOrg: string | null;
}

export const UNKNOWN_IP: IpFacts = { tor: false, vpn: false, proxy: false, datacenter: false, knownFraud: false, country: null, latitude: null, longitude: null, asn: null, asnOrg: null };

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
/** English name of a country code (ICU's, so no table of our own): KP is North Korea. */
export const countryName = (code: string): string => regionNames.of(code) ?? code;

export function ipSignals(f: IpFacts, highRiskCountries: ReadonlySet<string>): Signal[] {
  const out: Signal[] = [];
  if (f.tor) out.push({ key: 'ip.tor', reason: 'Tor exit node detected' });
  if (f.vpn) out.push({ key: 'ip.vpn', reason: 'VPN detected' });
  if (f.proxy) out.push({ key: 'ip.proxy', reason: 'Proxy detected' });
  if (f.datacenter) out.push({ key: 'ip.datacenter', reason: 'Datacenter IP' });
  if (f.knownFraud) out.push({ key: 'ip.known_fraud', reason: 'Known fraud IP' });
  if (f.country && highRiskCountries.has(f.country)) out.push({ key: 'ip.high_risk_country', reason: `High-risk country: ${countryName(f.country)}` });
  return out;
}

/** The reputation and network words of the glass-box answer. */
export function ipReputation(f: IpFacts): string {
  if (f.knownFraud) return 'malicious';
  if (f.tor || f.proxy || f.vpn) return 'suspicious';
  return f.country ? 'clean' : 'unknown';
}

export function networkKind(f: IpFacts): string {
  if (f.tor) return 'tor';
  if (f.vpn) return 'vpn';
  if (f.proxy) return 'proxy';
  if (f.datacenter) return 'datacenter';
  return f.asn !== null ? 'residential' : 'unknown';
}
