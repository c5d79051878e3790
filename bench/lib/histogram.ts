/** Readings of a Weir process's Prometheus histograms, for benches that load it over HTTP. */

/** Cumulative bucket counts of one histogram from a Prometheus text exposition. */
export async function buckets(base: string, name: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out = new Map<number, number>();
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)$`, 'gm'))) out.set(m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2]));
  return out;
}

/** p50 and p99 (ms) of what a histogram observed between two scrapes: the bucket bound each falls in. */
export function bucketQuantiles(before: Map<number, number>, after: Map<number, number>): [number, number] {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0));
  const total = counts.at(-1) ?? 0;
  const at = (q: number) => (bounds.find((_, i) => counts[i]! >= q * total) ?? Infinity) * 1000;
  return [at(0.5), at(0.99)];
}
