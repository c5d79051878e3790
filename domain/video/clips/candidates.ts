import { bm25Index } from './bm25.js';
import { lowerBound, nearest, round3, type ClipMaterial } from './material.js';
import { termsOf } from './terms.js';

/**
 * Clip candidates for a goal: every window of consecutive sentences lasting `minSeconds` to
 * `maxSeconds` that says at least one of the goal's terms, scored, and picked greedily, best
 * first, leaving out any that overlaps a picked one by more than `maxOverlap` of the shorter.
 *
 * The score is a weighted sum of parts, each from 0 to 1 (`score_parts` shows them):
 * - `bm25`: BM25 of the goal's terms over the source's sentences, summed over the window's
 *   sentences, relative to the best window;
 * - `opening`: 1 when the window's first sentence says a goal term (a clip that starts on topic);
 * - `boundary`: how close each edge is to a shot cut or a silence (1 on it, 0 from 1 s away);
 * - `loudness`: the share of the window above the silence threshold of preprocessing;
 * - `length`: 1 at `idealSeconds`, falling to 0 at twice or none of it.
 */

export interface CandidateOptions {
  maxCandidates: number;
  minSeconds: number;
  maxSeconds: number;
  idealSeconds: number;
  maxOverlap: number;
}

export const CANDIDATE_DEFAULTS: CandidateOptions = { maxCandidates: 5, minSeconds: 15, maxSeconds: 60, idealSeconds: 30, maxOverlap: 0.3 };

export const SCORE_WEIGHTS = { bm25: 0.5, opening: 0.15, boundary: 0.15, loudness: 0.1, length: 0.1 } as const;
export type ScoreParts = Record<keyof typeof SCORE_WEIGHTS, number>;

export interface Candidate {
  start: number;
  end: number;
  score: number;
  text: string;
  matched_terms: string[];
  score_parts: ScoreParts;
}

export type CandidateResult = { candidates: Candidate[]; terms: string[]; reason?: string };

/** How far from a cut or silence an edge still earns something, seconds. */
const EDGE_REACH = 1;

/** Seconds of silence in [0, t], over sorted, disjoint silences. */
function silenceClock(silences: ClipMaterial['silences']) {
  const starts = silences.map((s) => s.start);
  const before: number[] = [0];
  for (const s of silences) before.push(before.at(-1)! + (s.end - s.start));
  return (t: number) => {
    const i = lowerBound(starts, t);
    if (i === 0) return 0;
    const prev = silences[i - 1]!;
    return before[i - 1]! + Math.min(t, prev.end) - prev.start;
  };
}

/** 1 for an edge on a cut or inside a silence, falling to 0 at EDGE_REACH away. */
function edgeScorer(m: ClipMaterial) {
  const starts = m.silences.map((s) => s.start);
  return (t: number) => {
    const cut = nearest(m.cuts, t);
    let d = cut === undefined ? Infinity : Math.abs(cut - t);
    const i = lowerBound(starts, t);
    for (const s of [m.silences[i - 1], m.silences[i]]) if (s) d = Math.min(d, t < s.start ? s.start - t : Math.max(0, t - s.end));
    return Math.max(0, 1 - d / EDGE_REACH);
  };
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) => Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

export function clipCandidates(m: ClipMaterial, goal: string, options: Partial<CandidateOptions> = {}): CandidateResult {
  const o = { ...CANDIDATE_DEFAULTS, ...options };
  const terms = [...new Set(termsOf(goal))];
  if (terms.length === 0) return { candidates: [], terms, reason: 'the goal has no words to search for (only common words such as "the" or "and")' };
  if (m.sentences.length === 0) return { candidates: [], terms, reason: 'the source has no transcript' };
  const docs = m.sentences.map((s) => termsOf(s.text));
  const index = bm25Index(docs);
  const known = index.known(terms);
  if (known.length === 0) return { candidates: [], terms, reason: `no goal term (${terms.join(', ')}) is said in the transcript` };
  const scores = index.score(known);
  const sums = [0];
  for (const s of scores) sums.push(sums.at(-1)! + s);
  const silent = silenceClock(m.silences);
  const edge = edgeScorer(m);

  const windows: { i: number; j: number; bm25: number }[] = [];
  for (let i = 0; i < m.sentences.length; i++) {
    for (let j = i; j < m.sentences.length; j++) {
      const length = m.sentences[j]!.end - m.sentences[i]!.start;
      if (length > o.maxSeconds) break;
      const bm25 = sums[j + 1]! - sums[i]!;
      if (length >= o.minSeconds && bm25 > 0) windows.push({ i, j, bm25 });
    }
  }
  if (windows.length === 0) return { candidates: [], terms, reason: `the goal's terms are said, but no run of sentences around them lasts ${o.minSeconds}–${o.maxSeconds} s` };
  const best = Math.max(...windows.map((w) => w.bm25));
  const scored = windows.map(({ i, j, bm25 }) => {
    const [start, end] = [m.sentences[i]!.start, m.sentences[j]!.end];
    const length = end - start;
    const parts: ScoreParts = {
      bm25: bm25 / best,
      opening: docs[i]!.some((t) => known.includes(t)) ? 1 : 0,
      boundary: (edge(start) + edge(end)) / 2,
      loudness: 1 - (silent(end) - silent(start)) / length,
      length: Math.max(0, 1 - Math.abs(length - o.idealSeconds) / o.idealSeconds),
    };
    const score = (Object.keys(SCORE_WEIGHTS) as (keyof ScoreParts)[]).reduce((s, k) => s + SCORE_WEIGHTS[k] * parts[k], 0);
    return { i, j, start, end, score, parts };
  });
  scored.sort((a, b) => b.score - a.score || a.start - b.start);
  const picked: typeof scored = [];
  for (const w of scored) {
    if (picked.length >= o.maxCandidates) break;
    if (picked.every((p) => overlap(p, w) <= o.maxOverlap * Math.min(p.end - p.start, w.end - w.start))) picked.push(w);
  }
  const candidates = picked.map(({ i, j, start, end, score, parts }) => {
    const said = new Set(docs.slice(i, j + 1).flat());
    return {
      start: round3(start),
      end: round3(end),
      score: round3(score),
      text: m.sentences.slice(i, j + 1).map((s) => s.text).join(' '),
      matched_terms: known.filter((t) => said.has(t)),
      score_parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, round3(v)])) as ScoreParts,
    };
  });
  return { candidates, terms };
}
