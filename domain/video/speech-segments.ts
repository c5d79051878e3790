import type { Silence } from './source.js';

/**
 * Splits media of `duration` seconds into at most `parts` consecutive segments for speech
 * recognition running in parallel, cutting only in the middle of a silence (never inside a word),
 * each cut at the silence nearest to an even share. Media without silences stays one segment.
 */
export function splitAtSilences(duration: number, silences: Silence[], parts: number): { start: number; end: number }[] {
  const mids = silences.map((s) => (s.start + s.end) / 2).filter((t) => t > 0 && t < duration);
  const cuts: number[] = [];
  for (let i = 1; i < parts; i++) {
    const target = (duration * i) / parts;
    const best = mids.filter((t) => !cuts.includes(t) && t > (cuts.at(-1) ?? 0)).sort((a, b) => Math.abs(a - target) - Math.abs(b - target))[0];
    if (best !== undefined) cuts.push(best);
  }
  const bounds = [0, ...cuts.sort((a, b) => a - b), duration];
  return bounds.slice(1).map((end, i) => ({ start: Math.round(bounds[i]! * 1000) / 1000, end: Math.round(end * 1000) / 1000 }));
}

/** Word error rate of `hypothesis` against `reference`: word-level edit distance over the reference's length. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const words = (s: string) => s.toLowerCase().replace(/[^a-z0-9' ]+/g, ' ').split(/\s+/).filter(Boolean);
  const [r, h] = [words(reference), words(hypothesis)];
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const row = [i];
    for (let j = 1; j <= h.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    prev = row;
  }
  return r.length === 0 ? (h.length === 0 ? 0 : 1) : prev[h.length]! / r.length;
}
