import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { IpLists, parseListFile } from '../infra/risk/ip-lists.js';
import { IpRangeSet, parseIp, parseRange } from '../infra/risk/ip-ranges.js';
import { parseAsnCsv } from '../infra/risk/geo.js';
import { isHostingName } from '../infra/risk/ip-intel.js';
import { loadDisposableDomains } from '../infra/risk/email-domains.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'risk-lists');
const log = pino({ level: 'silent' });
const ip = (s: string) => parseIp(s)!;

describe('IP ranges', () => {
  it('parses IPv4, IPv6 and IPv4-mapped addresses', () => {
    expect(parseIp('1.2.3.4')).toEqual({ family: 4, value: 0x01020304 });
    expect(parseIp('::ffff:1.2.3.4')).toEqual({ family: 4, value: 0x01020304 });
    expect(parseIp('2001:db8::1')).toEqual({ family: 6, value: (0x20010db8n << 96n) + 1n });
    expect(parseIp('nope')).toBeNull();
    expect(parseRange('10.0.0.0/33')).toBeNull();
  });

  it('finds addresses in merged ranges', () => {
    const set = new IpRangeSet(['10.0.0.0/8', '10.1.0.0/16', '192.0.2.5', '2001:db8::/32', 'junk']);
    expect(set.size).toBe(3);
    expect(set.has(ip('10.200.1.1'))).toBe(true);
    expect(set.has(ip('11.0.0.0'))).toBe(false);
    expect(set.has(ip('192.0.2.5'))).toBe(true);
    expect(set.has(ip('192.0.2.6'))).toBe(false);
    expect(set.has(ip('2001:db8:ffff::1'))).toBe(true);
    expect(set.has(ip('2001:db9::1'))).toBe(false);
  });

  it('reads the ASN tables of the data package format', () => {
    const t4 = parseAsnCsv('16777216,16777471,13335,"Cloudflare, Inc."\n16778240,16779263,38803,Gtelecom Pty Ltd\n', 4);
    expect(t4.get(ip('1.0.0.1').value)).toEqual({ asn: 13335, org: 'Cloudflare, Inc.' });
    expect(t4.get(ip('1.0.2.1').value)).toBeNull();
    const t6 = parseAsnCsv('2001::,2001::ffff:ffff:ffff:ffff:ffff:ffff,6939,Hurricane Electric LLC\n', 6);
    expect(t6.get(ip('2001::5').value)?.asn).toBe(6939);
  });
});

describe('IP lists in their publishers formats', () => {
  it("reads Tor's exit-addresses, bulk lists, CIDR lists, ipsets and ASNs", () => {
    expect(parseListFile('ExitNode ABC\nPublished 2030-01-01 10:00:00\nExitAddress 198.51.100.7 2030-01-01 11:02:13\n')).toEqual({ ranges: ['198.51.100.7'], asns: [] });
    expect(parseListFile('# c\n203.0.113.0/28\n\n203.0.113.64 ; x\nAS64500\n')).toEqual({ ranges: ['203.0.113.0/28', '203.0.113.64'], asns: [64500] });
  });

  it('loads every kind from its folder; a missing folder is an empty list', async () => {
    const lists = new IpLists(FIXTURES, log);
    await lists.reload();
    expect(lists.on('tor', ip('198.51.100.7'), null)).toBe(true);
    expect(lists.on('tor', ip('198.51.100.20'), null)).toBe(true);
    expect(lists.on('tor', ip('2001:db8::7'), null)).toBe(true);
    expect(lists.on('tor', ip('198.51.100.8'), null)).toBe(false);
    expect(lists.on('vpn', ip('203.0.113.15'), null)).toBe(true);
    expect(lists.on('vpn', ip('203.0.113.16'), null)).toBe(false);
    expect(lists.on('proxy', ip('203.0.113.65'), null)).toBe(true);
    expect(lists.on('datacenter', ip('203.0.113.200'), null)).toBe(true);
    expect(lists.on('datacenter', ip('8.8.8.8'), 64500)).toBe(true);
    expect(lists.on('fraud', ip('2001:db8:bad::1'), null)).toBe(true);
    const none = new IpLists(path.join(FIXTURES, 'absent'), log);
    await none.reload();
    expect(Object.values(none.counts).every((c) => c === 0)).toBe(true);
  });

  it('a reload swaps in the files as they are now', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'risk-lists-'));
    try {
      const lists = new IpLists(dir, log);
      await lists.reload();
      expect(lists.on('tor', ip('192.0.2.44'), null)).toBe(false);
      await mkdir(path.join(dir, 'tor'));
      await writeFile(path.join(dir, 'tor', 'torbulkexitlist'), '192.0.2.44\n');
      await lists.reload();
      expect(lists.on('tor', ip('192.0.2.44'), null)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('package data', () => {
  it('recognises hosting networks by name', () => {
    expect(isHostingName('Amazon.com, Inc.')).toBe(true);
    expect(isHostingName('Hetzner Online GmbH')).toBe(true);
    expect(isHostingName('Deutsche Telekom AG')).toBe(false);
  });

  it('knows disposable domains, wildcard subdomains included', () => {
    const disposable = loadDisposableDomains();
    expect(disposable('mailinator.com')).toBe(true);
    expect(disposable('gmail.com')).toBe(false);
    expect(disposable('anything.33mail.com')).toBe(true);
  });
});
