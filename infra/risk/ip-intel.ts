import type { IpFacts } from '../../domain/risk/ip.js';
import type { GeoData } from './geo.js';
import type { IpLists } from './ip-lists.js';
import { parseIp } from './ip-ranges.js';

/**
 * Networks of hosting and cloud providers, recognised by the ASN's registered name: a datacenter
 * address without a datacenter list. The lists' ASNs (datacenter/AS... lines) add to it.
 */
const HOSTING_NAME = /hosting|\bhost\b|cloud|data ?cent(er|re)|\bservers?\b|\bvps\b|colocation|dedicated|amazon|digitalocean|\bovh\b|hetzner|linode|akamai|vultr|choopa|contabo|leaseweb|\bm247\b|alibaba|tencent|oracle/i;

export const isHostingName = (org: string): boolean => HOSTING_NAME.test(org);

/** Everything known of an address: lists first, then geolocation and ASN. */
export async function ipFacts(address: string, geo: GeoData, lists: IpLists): Promise<IpFacts> {
  const ip = parseIp(address);
  if (!ip) throw new Error(`not an IP address: ${address}`);
  const g = await geo.lookup(address, ip);
  return {
    tor: lists.on('tor', ip, g.asn),
    vpn: lists.on('vpn', ip, g.asn),
    proxy: lists.on('proxy', ip, g.asn),
    datacenter: lists.on('datacenter', ip, g.asn) || (g.asnOrg !== null && isHostingName(g.asnOrg)),
    knownFraud: lists.on('fraud', ip, g.asn),
    ...g,
  };
}
