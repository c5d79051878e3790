import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadSnapshot } from './loader.js';
import type { ListSource } from './sources/types.js';

export interface UpdateResult {
  list: string;
  status: 'updated' | 'failed' | 'manual';
  detail: string;
}

export interface UpdateOptions {
  sources: ListSource[];
  /** Per file; a publisher that does not answer in time fails its list, not the run. */
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
  onResult?: (r: UpdateResult) => void;
}

/**
 * Downloads fresh official files for each list into a staging folder beside the data, parses them
 * (a file that does not parse is never put in place), then moves them over the old files. A list
 * that fails keeps its previous files; the others still update.
 */
export async function updateLists(dir: string, opts: UpdateOptions): Promise<UpdateResult[]> {
  const results: UpdateResult[] = [];
  const report = (r: UpdateResult) => {
    results.push(r);
    opts.onResult?.(r);
  };
  await mkdir(dir, { recursive: true });
  for (const source of opts.sources) {
    if (source.downloads.length === 0) {
      report({ list: source.id, status: 'manual', detail: `no machine-readable publication; maintain ${path.join(source.folder, source.mainFile)} by hand` });
      continue;
    }
    const staging = await mkdtemp(path.join(dir, `.staging-${source.id}-`));
    try {
      for (const d of source.downloads) {
        const res = await (opts.fetchImpl ?? fetch)(d.url, { signal: AbortSignal.timeout(opts.timeoutMs ?? 120_000) });
        if (!res.ok) throw new Error(`${d.url} answered ${res.status}`);
        await mkdir(path.join(staging, source.folder), { recursive: true });
        await writeFile(path.join(staging, source.folder, d.file), Buffer.from(await res.arrayBuffer()));
      }
      const check = await loadSnapshot(staging, { sources: [source] });
      const target = path.join(dir, source.folder);
      await mkdir(target, { recursive: true });
      for (const d of source.downloads) await rename(path.join(staging, source.folder, d.file), path.join(target, d.file));
      report({ list: source.id, status: 'updated', detail: `${check.entities.length} entities in ${source.downloads.length} file(s)` });
    } catch (err) {
      const cause = err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err);
      report({ list: source.id, status: 'failed', detail: `${cause}; previous files kept` });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  return results;
}
