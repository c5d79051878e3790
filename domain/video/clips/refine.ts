import { nearest, round3, type ClipMaterial } from './material.js';

/**
 * Snaps a window to the source's structure: its edges move out to the sentences they cut into (a
 * clip never starts or ends mid-sentence), then each edge takes the nearest shot cut within
 * `snap` seconds, the cleanest place to cut a picture. An edge with no cut near gets `margin`
 * seconds of air, never reaching into the neighbouring sentence or past the media.
 */

export interface RefineOptions {
  snap: number;
  margin: number;
}

export const REFINE_DEFAULTS: RefineOptions = { snap: 1, margin: 0.25 };

export type EdgeKind = 'cut' | 'sentence' | 'as-given';

export interface Refined {
  start: number;
  end: number;
  /** What each edge landed on. */
  startsOn: EdgeKind;
  endsOn: EdgeKind;
}

export function refineWindow(m: ClipMaterial, window: { start: number; end: number }, options: Partial<RefineOptions> = {}): Refined {
  const o = { ...REFINE_DEFAULTS, ...options };
  const s = m.sentences;
  // The sentences the window touches: from the first ending after its start to the last starting before its end.
  const first = s.findIndex((x) => x.end > window.start && x.start < window.end);
  const last = s.findLastIndex((x) => x.start < window.end && x.end > window.start);
  const [start, end] = first === -1 ? [window.start, window.end] : [s[first]!.start, s[last]!.end];
  const edgeKind: EdgeKind = first === -1 ? 'as-given' : 'sentence';

  const cutNear = (t: number) => {
    const c = nearest(m.cuts, t);
    return c !== undefined && Math.abs(c - t) <= o.snap ? c : undefined;
  };
  const startCut = cutNear(start);
  const endCut = cutNear(end);
  const prevEnd = first > 0 ? s[first - 1]!.end : 0;
  const nextStart = last !== -1 && last + 1 < s.length ? s[last + 1]!.start : m.duration;
  // Over no speech there is no sentence to give air to: the edges stay where they were given.
  const margin = first === -1 ? 0 : o.margin;
  const refinedStart = startCut ?? Math.max(0, Math.min(start, Math.max(prevEnd, start - margin)));
  const refinedEnd = endCut !== undefined && endCut > refinedStart ? endCut : Math.min(m.duration, Math.max(end, Math.min(nextStart, end + margin)));
  return {
    start: round3(refinedStart),
    end: round3(refinedEnd),
    startsOn: startCut !== undefined ? 'cut' : edgeKind,
    endsOn: endCut !== undefined && endCut > refinedStart ? 'cut' : edgeKind,
  };
}
