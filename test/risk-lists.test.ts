import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpLists, parseListFile } from '../infra/risk/ip-lists.js';
import { IpRangeSet, parseIp, parseRange } from '../infra/risk/ip-ranges.js';
import { parseAsnCsv } from '../infra/risk/geo.js';
import { isHostingName } from '../infra/risk/ip-intel.js';
import { loadDisposableDomains } from '../infra/risk/email-domains.js';
import { parseListSources, updateIpLists } from '../infra/risk/update-lists.js';
import { serveFiles } from './support/file-server.js';

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

  it('reads the ASN tables of the data package format', async () => {
    const t4 = await parseAsnCsv('16777216,16777471,13335,"Cloudflare, Inc."\n16778240,16779263,38803,Gtelecom Pty Ltd\n', 4);
    expect(t4.get(ip('1.0.0.1').value)).toEqual({ asn: 13335, org: 'Cloudflare, Inc.' });
    expect(t4.get(ip('1.0.2.1').value)).toBeNull();
    const t6 = await parseAsnCsv('2001::,2001::ffff:ffff:ffff:ffff:ffff:ffff,6939,Hurricane Electric LLC\n', 6);
    expect(t6.get(ip('2001::5').value)?.asn).toBe(6939);
  });

  it('lets the event loop turn while it parses a large ASN table', async () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `${i * 256},${i * 256 + 255},${i % 900},AS ${i % 900}`).join('\n');
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const table = await parseAsnCsv(lines, 4);
    clearInterval(ticker);
    expect(table.get(ip('0.0.1.1').value)).toEqual({ asn: 1, org: 'AS 1' });
    expect(turns).toBeGreaterThan(0);
  });
});

describe('IP lists in their publishers formats', () => {
  it("reads Tor's exit-addresses, bulk lists, CIDR lists, ipsets and ASNs", () => {
    expect(parseListFile('ExitNode ABC\nPublished 2030-01-01 10:00:00\nExitAddress 198.51.100.7 2030-01-01 11:02:13\n')).toEqual({ ranges: ['198.51.100.7'], asns: [], invalid: [] });
    expect(parseListFile('# c\n203.0.113.0/28\n\n203.0.113.64 ; x\nAS64500\n')).toEqual({ ranges: ['203.0.113.0/28', '203.0.113.64'], asns: [64500], invalid: [] });
    expect(parseListFile('10.0.0.1\n<html>\n10.0.0.0/40\n').invalid).toEqual(['2: <html>', '3: 10.0.0.0/40']);
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

describe('scheduled download of the lists (RISK_LISTS_SOURCES)', () => {
  let publisher: Awaited<ReturnType<typeof serveFiles>>;
  let base: string;
  const files: Record<string, string> = {
    '/torbulkexitlist': '192.0.2.50\n192.0.2.51\n',
    '/tor-v2/torbulkexitlist': '192.0.2.60\n',
    '/firehol_level1.netset': '# FireHOL level 1\n198.18.0.0/15\n',
    '/error.html': '<html><body>Service unavailable</body></html>\n',
    '/empty.netset': '# nothing today\n',
  };
  beforeAll(async () => {
    publisher = await serveFiles(files);
    base = publisher.base;
  });
  afterAll(() => publisher.close());

  it('reads kind=url pairs and says which entry is wrong', () => {
    expect(parseListSources(['tor=https://check.torproject.org/torbulkexitlist'])).toEqual([{ kind: 'tor', url: 'https://check.torproject.org/torbulkexitlist' }]);
    expect(() => parseListSources(['spam=https://example.org/x'])).toThrow('RISK_LISTS_SOURCES entry "spam=https://example.org/x": must be <kind>=<url> with kind one of tor, vpn, proxy, datacenter, fraud');
    expect(() => parseListSources(['tor=file:///etc/passwd'])).toThrow('file:///etc/passwd is not an http(s) URL');
    expect(() => parseListSources(['https://example.org/x'])).toThrow('must be <kind>=<url>');
  });

  it('puts downloads in place and the reload serves them; hand-kept files stay beside them', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'risk-lists-'));
    try {
      await mkdir(path.join(dir, 'tor'));
      await writeFile(path.join(dir, 'tor', 'local'), '192.0.2.99\n');
      const lists = new IpLists(dir, log);
      const r = await updateIpLists(dir, [
        { kind: 'tor', url: `${base}/torbulkexitlist` },
        { kind: 'tor', url: `${base}/tor-v2/torbulkexitlist` },
        { kind: 'fraud', url: `${base}/firehol_level1.netset` },
      ]);
      expect(r).toEqual([
        { kind: 'tor', status: 'updated', detail: '3 entries in 2 file(s)' },
        { kind: 'fraud', status: 'updated', detail: '1 entries in 1 file(s)' },
      ]);
      expect((await readdir(path.join(dir, 'tor'))).sort()).toEqual(['download-2-torbulkexitlist', 'download-torbulkexitlist', 'local']);
      expect((await readdir(dir)).filter((f) => f.startsWith('.'))).toEqual([]);
      await lists.reload();
      for (const a of ['192.0.2.50', '192.0.2.60', '192.0.2.99']) expect(lists.on('tor', ip(a), null)).toBe(true);
      expect(lists.on('fraud', ip('198.19.1.1'), null)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the previous list when a download fails, is an error page or lists nothing; other kinds still update', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'risk-lists-'));
    try {
      const tor = { kind: 'tor' as const, url: `${base}/torbulkexitlist` };
      await updateIpLists(dir, [tor]);
      const before = await readFile(path.join(dir, 'tor', 'download-torbulkexitlist'), 'utf8');
      files['/torbulkexitlist'] = files['/error.html']!;
      const r = await updateIpLists(dir, [tor, { kind: 'vpn', url: `${base}/gone.txt` }, { kind: 'proxy', url: `${base}/empty.netset` }, { kind: 'datacenter', url: 'http://127.0.0.1:9/down.txt' }, { kind: 'fraud', url: `${base}/firehol_level1.netset` }]);
      expect(r).toEqual([
        { kind: 'tor', status: 'failed', detail: `${base}/torbulkexitlist line 1: <html><body>Service is no address, range or ASN; previous files kept` },
        { kind: 'vpn', status: 'failed', detail: `${base}/gone.txt answered 404; previous files kept` },
        { kind: 'proxy', status: 'failed', detail: `${base}/empty.netset lists nothing; previous files kept` },
        { kind: 'datacenter', status: 'failed', detail: expect.stringMatching(/^fetch failed .*; previous files kept$/) },
        { kind: 'fraud', status: 'updated', detail: '1 entries in 1 file(s)' },
      ]);
      expect(await readFile(path.join(dir, 'tor', 'download-torbulkexitlist'), 'utf8')).toBe(before);
      const lists = new IpLists(dir, log);
      await lists.reload();
      expect(lists.on('tor', ip('192.0.2.50'), null)).toBe(true);
      expect(lists.counts).toMatchObject({ tor: 2, vpn: 0, proxy: 0, datacenter: 0, fraud: 1 });
    } finally {
      files['/torbulkexitlist'] = '192.0.2.50\n192.0.2.51\n';
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
