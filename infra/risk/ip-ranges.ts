import { isIPv4, isIPv6 } from 'node:net';

/**
 * Sets of IPv4 and IPv6 ranges with logarithmic lookups: ranges are sorted and merged once when
 * built, then each lookup is one binary search (IPv4 as numbers, IPv6 as 128-bit BigInts).
 */

export type ParsedIp = { family: 4; value: number } | { family: 6; value: bigint };

export function ipv4ToNumber(ip: string): number {
  const parts = ip.split('.');
  return ((Number(parts[0]) << 24) >>> 0) + (Number(parts[1]) << 16) + (Number(parts[2]) << 8) + Number(parts[3]);
}

export function ipv6ToBigInt(ip: string): bigint {
  let text = ip.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // An embedded IPv4 tail (::ffff:1.2.3.4) is two groups.
  const v4 = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const n = ipv4ToNumber(v4[1]!);
    text = `${text.slice(0, -v4[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) + BigInt(parseInt(g || '0', 16)), 0n);
}

const MAPPED_V4 = 0xffffn << 32n;

/** Parses an address; an IPv4-mapped IPv6 address counts as its IPv4 address. */
export function parseIp(ip: string): ParsedIp | null {
  if (isIPv4(ip)) return { family: 4, value: ipv4ToNumber(ip) };
  if (!isIPv6(ip)) return null;
  const v = ipv6ToBigInt(ip);
  if (v >> 32n === 0xffffn) return { family: 4, value: Number(v - MAPPED_V4) };
  return { family: 6, value: v };
}

/** `1.2.3.0/24`, `2001:db8::/32` or one address: the first and last address of the range. */
export function parseRange(text: string): { family: 4; lo: number; hi: number } | { family: 6; lo: bigint; hi: bigint } | null {
  const [addr = '', bitsText] = text.split('/');
  const ip = parseIp(addr);
  if (!ip) return null;
  const max = ip.family === 4 ? 32 : 128;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > max || (bitsText !== undefined && !/^\d+$/.test(bitsText))) return null;
  if (ip.family === 4) {
    const size = 2 ** (32 - bits);
    const lo = Math.floor(ip.value / size) * size;
    return { family: 4, lo, hi: lo + size - 1 };
  }
  const host = (1n << BigInt(128 - bits)) - 1n;
  const lo = ip.value & ~host;
  return { family: 6, lo, hi: lo | host };
}

function merge<T extends number | bigint>(ranges: [T, T][]): [T, T][] {
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: [T, T][] = [];
  for (const r of ranges) {
    const last = out.at(-1);
    if (last && r[0] <= last[1]) {
      if (r[1] > last[1]) last[1] = r[1];
    } else out.push([r[0], r[1]]);
  }
  return out;
}

function search<T extends number | bigint>(ranges: [T, T][], v: T): number {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid]!;
    if (v < r[0]) hi = mid - 1;
    else if (v > r[1]) lo = mid + 1;
    else return mid;
  }
  return -1;
}

export class IpRangeSet {
  private readonly v4: [number, number][];
  private readonly v6: [bigint, bigint][];

  constructor(ranges: Iterable<string>) {
    const v4: [number, number][] = [];
    const v6: [bigint, bigint][] = [];
    for (const text of ranges) {
      const r = parseRange(text);
      if (r?.family === 4) v4.push([r.lo, r.hi]);
      else if (r?.family === 6) v6.push([r.lo, r.hi]);
    }
    this.v4 = merge(v4);
    this.v6 = merge(v6);
  }

  get size(): number {
    return this.v4.length + this.v6.length;
  }

  has(ip: ParsedIp): boolean {
    return ip.family === 4 ? search(this.v4, ip.value) >= 0 : search(this.v6, ip.value) >= 0;
  }
}

/**
 * A table of ranges each carrying an ASN and its organization's name: parallel sorted arrays, one
 * binary search per lookup. Ranges must not overlap (as in the published ASN tables). IPv4 bounds
 * and every ASN live in typed arrays and names are shared, so the 400,000 IPv4 ranges are a few
 * heap objects rather than one each (each major GC marked them all: pauses the check's p99 saw).
 */
export class AsnTable {
  constructor(
    private readonly starts: Float64Array | bigint[],
    private readonly ends: Float64Array | bigint[],
    private readonly asns: Uint32Array,
    private readonly orgIds: Uint32Array,
    private readonly orgs: string[],
  ) {}

  get(v: number | bigint): { asn: number; org: string } | null {
    let lo = 0;
    let hi = this.asns.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (v < this.starts[mid]!) hi = mid - 1;
      else if (v > this.ends[mid]!) lo = mid + 1;
      else return { asn: this.asns[mid]!, org: this.orgs[this.orgIds[mid]!]! };
    }
    return null;
  }
}
