import type { SanctionEntity } from './entity.js';
import type { Hit } from './index.js';

// What a screening decides and how it explains a match: shared by screen.ts and explain.ts, which
// would otherwise import each other.

export const DECISIONS = ['CLEAR', 'REVIEW', 'BLOCK'] as const;
export type Decision = (typeof DECISIONS)[number];

/** Scores from `review` up are REVIEW; from `block` up, on a sanctions list, BLOCK. */
export interface Thresholds {
  review: number;
  block: number;
}

export interface ScreenQuery {
  name: string;
  /** YYYY-MM-DD */
  dob?: string;
  /** ISO 3166 alpha-2 */
  nationality?: string;
}

/**
 * A rule of judgement beyond the score: `weak_alias` (the name matched is a weak alias: at most
 * REVIEW, and only with a second agreeing attribute), `inner_names_missing` (the query is the
 * listed name less middle names or patronymics: at least REVIEW, BLOCK with an agreeing attribute).
 */
export type JudgementRule = 'weak_alias' | 'inner_names_missing';

export interface DirectMatch {
  /** The record that matched best. */
  entity: SanctionEntity;
  /** Every record of the same party, on every list, the best-matching first. */
  listings: SanctionEntity[];
  /** Name score adjusted by date of birth and nationality, in [0, 1]. */
  score: number;
  nameScore: number;
  matchedName: string;
  dobEffect: number;
  nationalityEffect: number;
  /** This match's own decision: from the score and thresholds, then `rule`. */
  decision: Decision;
  rule: JudgementRule | null;
  /** Attributes of the query that agree with the record (date of birth, nationality, country of an address). */
  agreeing: ('dob' | 'nationality' | 'country')[];
  hit: Hit;
  /** How the decision was reached; set on the matches a screening reports. */
  explanation?: Explanation;
}

/** How a listed name stands for its party: the primary name, an ordinary (strong) alias, or a weak alias. */
export type NameKind = 'primary' | 'strong' | 'weak';

export interface TokenAlignment {
  /** The query's word as folded (null: a word of the listed name the query lacks). */
  query: string | null;
  /** The listed name's word as folded (null: a query word the listed name lacks). */
  listed: string | null;
  /** 0 to 1; 0 for an unpaired word. */
  similarity: number;
  /** Rarity weight of the word (its share of the name's score). */
  weight: number;
}

export interface AttributeEffect {
  attribute: 'dob' | 'nationality' | 'country';
  given: string;
  listed: string[];
  /** Added to the name score (country only counts as an agreeing attribute). */
  effect: number;
  verdict: 'agrees' | 'contradicts' | 'neutral';
}

/** One match's score written out, the way watchman's DebugSimilarity writes one. */
export interface Explanation {
  matchedName: string;
  nameKind: NameKind;
  nameScore: number;
  queryCoverage: number;
  listedCoverage: number;
  /** score = query coverage × (1 − w + w × listed coverage). */
  listedCoverageWeight: number;
  tokens: TokenAlignment[];
  attributes: AttributeEffect[];
  rule: DirectMatch['rule'];
  /** What the rule did to the decision, in words. */
  ruleEffect: string | null;
  thresholds: Thresholds;
  score: number;
  decision: Decision;
}
