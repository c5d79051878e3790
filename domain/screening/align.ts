import { tokenSimilarity } from './similarity.js';

/** A name ready for comparison: tokens with their phonetic keys and rarity weights (computed once). */
export interface PreparedName {
  tokens: string[];
  /** Each token as written (folded, before canonical spelling). */
  spellings: string[];
  keys: string[][];
  weights: number[];
  /** The same name read with glued breaks joined (`Vla!dimir`), screened alongside it. */
  alternative?: PreparedName;
}

export interface Alignment {
  score: number;
  /** Weighted share of the query's tokens that found a partner. */
  queryCoverage: number;
  /** Weighted share of the candidate's tokens that found a partner. */
  candidateCoverage: number;
  /** Query token index, candidate token index, similarity. */
  pairs: [number, number, number][];
}

/**
 * How much an unmatched candidate token costs: 0 ignores the candidate's extra name parts (a
 * dropped middle name costs nothing), 1 weighs them like the query's own tokens.
 */
export const CANDIDATE_COVERAGE_WEIGHT = 0.5;

/**
 * Aligns query tokens to candidate tokens regardless of order: the most similar pairs are taken
 * first, each token used at most once, so reordered, missing and extra name parts are tolerated
 * and only cost their rarity-weighted share of the name.
 */
export function align(q: PreparedName, c: PreparedName): Alignment {
  const m = q.tokens.length;
  const n = c.tokens.length;
  const cells: [number, number, number][] = [];
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      const s = tokenSimilarity(q.tokens[i]!, c.tokens[j]!, q.keys[i]!, c.keys[j]!, q.spellings[i], c.spellings[j]);
      if (s > 0) cells.push([i, j, s]);
    }
  }
  cells.sort((x, y) => y[2] - x[2] || x[0] - y[0]);
  const usedQ = new Uint8Array(m);
  const usedC = new Uint8Array(n);
  const pairs: [number, number, number][] = [];
  for (const cell of cells) {
    if (usedQ[cell[0]] || usedC[cell[1]]) continue;
    usedQ[cell[0]] = 1;
    usedC[cell[1]] = 1;
    pairs.push(cell);
  }
  let qTotal = 0;
  let cTotal = 0;
  let qHit = 0;
  let cHit = 0;
  for (const w of q.weights) qTotal += w;
  for (const w of c.weights) cTotal += w;
  for (const [i, j, s] of pairs) {
    qHit += s * q.weights[i]!;
    cHit += s * c.weights[j]!;
  }
  const queryCoverage = qTotal > 0 ? qHit / qTotal : 0;
  const candidateCoverage = cTotal > 0 ? cHit / cTotal : 0;
  const score = queryCoverage * (1 - CANDIDATE_COVERAGE_WEIGHT + CANDIDATE_COVERAGE_WEIGHT * candidateCoverage);
  return { score, queryCoverage, candidateCoverage, pairs };
}
