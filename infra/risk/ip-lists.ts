import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { up, type PartHealth } from '../health.js';
import { IpRangeSet, parseRange, type ParsedIp } from './ip-ranges.js';

const emptyWarning = (dir: string, empty: readonly string[]) =>
  `risk IP lists empty: ${empty.join(', ')} (no files under ${dir}/<kind>); checks score these addresses as clean`;

/**
 * IP reputation lists read from files in their publishers' formats, one folder per kind under
 * RISK_LISTS_DIR:
 *
 *   tor/         the Tor Project's exit lists: `exit-addresses` (ExitAddress lines) or the bulk
 *                exit list (one address per line)
 *   vpn/, proxy/, datacenter/, fraud/
 *                one address, CIDR range or ASN (`AS16509`) per line, `#` or `;` comments: the
 *                format of FireHOL's .netset/.ipset files, X4BNet's lists_vpn and most feeds
 *
 * Nothing is fetched at start: an absent folder is an empty list. A reload builds a new snapshot
 * and swaps it in whole; a folder that cannot be read keeps its previous list.
 */

export const LIST_KINDS = ['tor', 'vpn', 'proxy', 'datacenter', 'fraud'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

export interface ListSnapshot {
  ranges: Record<ListKind, IpRangeSet>;
  asns: Record<ListKind, Set<number>>;
  counts: Record<ListKind, number>;
  loadedAt: number;
}

const emptySnapshot = (): ListSnapshot => ({
  ranges: Object.fromEntries(LIST_KINDS.map((k) => [k, new IpRangeSet([])])) as ListSnapshot['ranges'],
  asns: Object.fromEntries(LIST_KINDS.map((k) => [k, new Set<number>()])) as ListSnapshot['asns'],
  counts: Object.fromEntries(LIST_KINDS.map((k) => [k, 0])) as ListSnapshot['counts'],
  loadedAt: 0,
});

/**
 * The entries of one list file: addresses and ranges, ASNs, and the lines that are neither
 * (`<line>: <token>`; an updater refuses a download with any, a reload skips them).
 */
export function parseListFile(text: string): { ranges: string[]; asns: number[]; invalid: string[] } {
  const ranges: string[] = [];
  const asns: number[] = [];
  const invalid: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/[#;].*$/, '').trim();
    if (!line) return;
    const tokens = line.split(/[\s,]+/);
    // Tor's exit-addresses: `ExitAddress 1.2.3.4 2024-01-01 00:00:00`; other keys of that file are skipped.
    const token = tokens[0] === 'ExitAddress' ? tokens[1] : /^[A-Z][a-zA-Z]+$/.test(tokens[0]!) ? undefined : tokens[0];
    if (!token) return;
    const asn = token.match(/^AS(\d+)$/i);
    if (asn) asns.push(Number(asn[1]));
    else if (parseRange(token)) ranges.push(token);
    else invalid.push(`${i + 1}: ${token.slice(0, 60)}`);
  });
  return { ranges, asns, invalid };
}

export async function loadLists(dir: string, previous: ListSnapshot, log: Logger): Promise<ListSnapshot> {
  const next = emptySnapshot();
  next.loadedAt = Date.now();
  for (const kind of LIST_KINDS) {
    const folder = path.join(dir, kind);
    let files: string[];
    try {
      files = (await readdir(folder)).filter((f) => !f.startsWith('.')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        log.warn({ err, kind }, 'risk list folder unreadable; keeping the previous list');
        next.ranges[kind] = previous.ranges[kind];
        next.asns[kind] = previous.asns[kind];
        next.counts[kind] = previous.counts[kind];
      }
      continue;
    }
    const ranges: string[] = [];
    for (const f of files) {
      const parsed = parseListFile(await readFile(path.join(folder, f), 'utf8'));
      if (parsed.invalid.length > 0) log.warn({ kind, file: f, lines: parsed.invalid.slice(0, 5), skipped: parsed.invalid.length }, 'risk list lines that are no address, range or ASN were skipped');
      ranges.push(...parsed.ranges);
      for (const a of parsed.asns) next.asns[kind].add(a);
    }
    next.ranges[kind] = new IpRangeSet(ranges);
    next.counts[kind] = next.ranges[kind].size + next.asns[kind].size;
  }
  log.info({ dir, counts: next.counts }, 'risk IP lists loaded');
  return next;
}

export class IpLists {
  private snapshot = emptySnapshot();

  constructor(
    private readonly dir: string,
    private readonly log: Logger,
  ) {}

  async reload(): Promise<ListSnapshot> {
    this.snapshot = await loadLists(this.dir, this.snapshot, this.log);
    const empty = this.empty;
    if (empty.length > 0) this.log.warn({ dir: this.dir, empty }, emptyWarning(this.dir, empty));
    return this.snapshot;
  }

  /** Whether the address (or its ASN) is on the list of `kind`. */
  on(kind: ListKind, ip: ParsedIp, asn: number | null): boolean {
    return this.snapshot.ranges[kind].has(ip) || (asn !== null && this.snapshot.asns[kind].has(asn));
  }

  get counts(): Record<ListKind, number> {
    return this.snapshot.counts;
  }

  /** The kinds with no entry: a check scores their addresses as clean. */
  get empty(): ListKind[] {
    return LIST_KINDS.filter((k) => this.snapshot.counts[k] === 0);
  }

  /** Up always (checks go on), with a warning naming the empty kinds. */
  health(): PartHealth {
    const empty = this.empty;
    return empty.length === 0 ? up : { ok: true, detail: emptyWarning(this.dir, empty) };
  }
}
