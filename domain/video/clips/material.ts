import type { Silence, SourceRecord } from '../source.js';
import { sentencesOf, type Sentence } from './sentences.js';

/**
 * What clip selection reads of a preprocessed source: its sentences, where its picture cuts (the
 * starts of every shot but the first) and its silences, all sorted by time.
 */
export interface ClipMaterial {
  duration: number;
  sentences: Sentence[];
  cuts: number[];
  silences: Silence[];
}

export function clipMaterial(source: Pick<SourceRecord, 'durationSeconds' | 'transcript' | 'shots' | 'silences'>): ClipMaterial {
  const sentences = sentencesOf(source.transcript);
  return {
    duration: source.durationSeconds ?? sentences.at(-1)?.end ?? 0,
    sentences,
    cuts: source.shots.map((s) => s.start).filter((t) => t > 0).sort((a, b) => a - b),
    silences: [...source.silences].sort((a, b) => a.start - b.start),
  };
}

/** The index of the first element of sorted `xs` not below `t`. */
export function lowerBound(xs: readonly number[], t: number): number {
  let [lo, hi] = [0, xs.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The element of sorted `xs` nearest to `t`, or undefined when `xs` is empty. */
export function nearest(xs: readonly number[], t: number): number | undefined {
  const i = lowerBound(xs, t);
  const [before, after] = [xs[i - 1], xs[i]];
  if (before === undefined) return after;
  if (after === undefined) return before;
  return t - before <= after - t ? before : after;
}

export const round3 = (n: number) => Math.round(n * 1000) / 1000;
