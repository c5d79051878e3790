import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LIST_KINDS, parseListFile, type ListKind } from './ip-lists.js';

/** One publisher file of a list kind, as RISK_LISTS_SOURCES names it (`tor=https://...`). */
export interface ListDownload {
  kind: ListKind;
  url: string;
}

export interface ListUpdateResult {
  kind: ListKind;
  status: 'updated' | 'failed';
  detail: string;
}

/**
 * Parses RISK_LISTS_SOURCES: `<kind>=<url>` pairs, comma separated, e.g.
 * `tor=https://check.torproject.org/torbulkexitlist,fraud=https://iplists.firehol.org/files/firehol_level1.netset`.
 */
export function parseListSources(entries: string[]): ListDownload[] {
  return entries.map((entry) => {
    const at = entry.indexOf('=');
    const kind = entry.slice(0, at).trim() as ListKind;
    const url = entry.slice(at + 1).trim();
    if (at < 0 || !LIST_KINDS.includes(kind)) throw new Error(`RISK_LISTS_SOURCES entry "${entry}": must be <kind>=<url> with kind one of ${LIST_KINDS.join(', ')}`);
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new Error(`RISK_LISTS_SOURCES entry "${entry}": ${url} is not an http(s) URL`);
    return { kind, url };
  });
}

/** The file a download is kept as in its kind's folder: the URL's last path segment, numbered when two of a kind share it. */
function fileNames(downloads: ListDownload[]): string[] {
  const used = new Set<string>();
  return downloads.map((d) => {
    const base = (path.posix.basename(new URL(d.url).pathname) || 'list').replace(/[^\w.-]/g, '_');
    let name = `download-${base}`;
    for (let n = 2; used.has(`${d.kind}/${name}`); n++) name = `download-${n}-${base}`;
    used.add(`${d.kind}/${name}`);
    return name;
  });
}

/**
 * Downloads each kind's publisher files into a staging folder beside the lists, checks that every
 * line is an address, range or ASN (an error page or a truncated file never replaces a list), then
 * renames them over the kind's previous downloads. A kind whose download or check fails keeps its
 * files; the others still update. Files put in a kind's folder by hand stay beside the downloads.
 * The caller reloads the lists afterwards (IpLists.reload swaps them in whole).
 */
export async function updateIpLists(dir: string, downloads: ListDownload[], opts: { timeoutMs?: number; fetchImpl?: typeof fetch } = {}): Promise<ListUpdateResult[]> {
  const names = fileNames(downloads);
  const results: ListUpdateResult[] = [];
  await mkdir(dir, { recursive: true });
  for (const kind of LIST_KINDS) {
    const mine = downloads.flatMap((d, i) => (d.kind === kind ? [{ ...d, file: names[i]! }] : []));
    if (mine.length === 0) continue;
    const staging = await mkdtemp(path.join(dir, `.staging-${kind}-`));
    try {
      let entries = 0;
      for (const d of mine) {
        const res = await (opts.fetchImpl ?? fetch)(d.url, { signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000) });
        if (!res.ok) throw new Error(`${d.url} answered ${res.status}`);
        const text = await res.text();
        const parsed = parseListFile(text);
        if (parsed.invalid.length > 0) throw new Error(`${d.url} line ${parsed.invalid[0]} is no address, range or ASN`);
        if (parsed.ranges.length + parsed.asns.length === 0) throw new Error(`${d.url} lists nothing`);
        entries += parsed.ranges.length + parsed.asns.length;
        await writeFile(path.join(staging, d.file), text);
      }
      await mkdir(path.join(dir, kind), { recursive: true });
      for (const d of mine) await rename(path.join(staging, d.file), path.join(dir, kind, d.file));
      results.push({ kind, status: 'updated', detail: `${entries} entries in ${mine.length} file(s)` });
    } catch (err) {
      const cause = err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err);
      results.push({ kind, status: 'failed', detail: `${cause}; previous files kept` });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  return results;
}
