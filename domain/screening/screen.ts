import { RELATIONSHIP_TYPES, type RelationshipType, type SanctionEntity } from './entity.js';
import { dobEffect, nationalityEffect } from './facts.js';
import { strongerFirst, type Edge } from './graph.js';
import type { PreparedName } from './align.js';
import type { Hit } from './index.js';
import type { Snapshot } from './snapshot.js';

export const DECISIONS = ['CLEAR', 'REVIEW', 'BLOCK'] as const;
export type Decision = (typeof DECISIONS)[number];

/** Scores from `review` up are REVIEW; from `block` up, on a sanctions list, BLOCK. */
export interface Thresholds {
  review: number;
  block: number;
}

/** Defaults chosen on the labeled evaluation set (bench/results/screening.md). */
export const DEFAULT_THRESHOLDS: Thresholds = { review: 0.8, block: 0.95 };

/** Per-organization relationship screening settings (Document 3). */
export interface RelationshipSettings {
  enabled: boolean;
  min_score: number;
  decision_escalation: 'REVIEW' | 'BLOCK';
  relationship_types: RelationshipType[];
}

export const DEFAULT_RELATIONSHIP_SETTINGS: RelationshipSettings = {
  enabled: true,
  min_score: 0.85,
  decision_escalation: 'REVIEW',
  relationship_types: [...RELATIONSHIP_TYPES],
};

export interface ScreenQuery {
  name: string;
  /** YYYY-MM-DD */
  dob?: string;
  /** ISO 3166 alpha-2 */
  nationality?: string;
}

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
}

export interface RelatedMatch {
  /** The listed entity the customer is related to. */
  related: SanctionEntity;
  edge: Edge;
  matchedName: string;
  score: number;
}

export interface Screening {
  decision: Decision;
  match: DirectMatch | null;
  relationship: RelatedMatch | null;
  /** Direct candidates, best first (for agent lookups). */
  candidates: DirectMatch[];
}

const RANK: Record<Decision, number> = { CLEAR: 0, REVIEW: 1, BLOCK: 2 };
export const stricter = (a: Decision, b: Decision): Decision => (RANK[a] >= RANK[b] ? a : b);

/** Fewer candidates than this are kept for reporting below the review threshold. */
const REPORT_FLOOR = 0.6;

export function directDecision(m: DirectMatch | null, t: Thresholds): Decision {
  if (!m || m.score < t.review) return 'CLEAR';
  return m.score >= t.block && m.listings.some((e) => e.listType === 'sanctions') ? 'BLOCK' : 'REVIEW';
}

function toDirect(s: Snapshot, hit: Hit, q: ScreenQuery): DirectMatch {
  const entity = s.entities[hit.ref]!;
  const nameScore = hit.alignment.score;
  const person = entity.type === 'person';
  const dob = person ? dobEffect(q.dob, entity.datesOfBirth) : 0;
  const nat = person ? nationalityEffect(q.nationality, entity.nationalities) : 0;
  const score = Math.max(0, Math.min(1, nameScore + dob + nat));
  return { entity, listings: [entity], score, nameScore, matchedName: s.index.texts[hit.name]!, dobEffect: dob, nationalityEffect: nat };
}

/** Sanctions lists before export-control and PEP lists when one party's records score alike. */
const LIST_RANK = { sanctions: 0, export_control: 1, pep: 2 } as const;

/**
 * One match per party, best first: the party's best-scoring record speaks for it (at the same
 * score a sanctions record before others, then the list loaded first: OFAC, UN, UK...), and its
 * listings name every record of the party.
 */
function byParty(s: Snapshot, candidates: DirectMatch[]): DirectMatch[] {
  const best = new Map<number, DirectMatch>();
  const before = (a: DirectMatch, b: DirectMatch) =>
    a.score !== b.score ? a.score > b.score : LIST_RANK[a.entity.listType] !== LIST_RANK[b.entity.listType] ? LIST_RANK[a.entity.listType] < LIST_RANK[b.entity.listType] : s.byId.get(a.entity.id)! < s.byId.get(b.entity.id)!;
  for (const c of candidates) {
    const party = s.parties.of[s.byId.get(c.entity.id)!]!;
    const prev = best.get(party);
    if (!prev || before(c, prev)) best.set(party, c);
  }
  const out = [...best.values()];
  for (const m of out) {
    const members = s.parties.membersOf(s.byId.get(m.entity.id)!).map((i) => s.entities[i]!);
    m.listings = [m.entity, ...members.filter((e) => e !== m.entity)];
  }
  return out.sort((a, b) => b.score - a.score);
}

/** The strongest allowed relationship behind a mention hit. */
function relatedThrough(s: Snapshot, hit: Hit, allowed: ReadonlySet<RelationshipType>): RelatedMatch | null {
  const mention = s.graph.mentions[hit.ref - s.entities.length]!;
  const edges = mention.edges.map((id) => s.graph.edges[id]!).filter((e) => allowed.has(e.type)).sort(strongerFirst);
  const edge = edges[0];
  if (!edge) return null;
  return { related: s.entities[edge.from]!, edge, matchedName: mention.name, score: hit.alignment.score };
}

/**
 * Screens one name. Direct and relationship screening share one normalisation and one candidate
 * retrieval pass over a single index (listed names and relationship mentions together), so the
 * relationship check adds only the scoring of its own few candidates, never a second search.
 */
export function screen(s: Snapshot, prepared: PreparedName, q: ScreenQuery, t: Thresholds, rel: RelationshipSettings): Screening {
  const listed = s.entities.length;
  const hits = s.index.search(prepared, { minScore: REPORT_FLOOR });
  const candidates: DirectMatch[] = [];
  let relationship: RelatedMatch | null = null;
  const allowed = new Set(rel.relationship_types);
  for (const hit of hits) {
    if (hit.ref < listed) candidates.push(toDirect(s, hit, q));
    else if (rel.enabled && !relationship && hit.alignment.score >= rel.min_score) relationship = relatedThrough(s, hit, allowed);
  }
  const parties = byParty(s, candidates);
  const match = parties[0] && parties[0].score >= t.review ? parties[0] : null;
  let decision = directDecision(match, t);
  if (relationship) decision = stricter(decision, rel.decision_escalation);
  return { decision, match, relationship, candidates: parties };
}

export interface RelationshipSearchHit {
  matchedName: string;
  score: number;
  related: SanctionEntity;
  edge: Edge;
}

/**
 * Names that take part in relationships (listed parties with relations, and unlisted mentions)
 * matching `prepared`, each with the party on the other side of every relationship.
 */
export function searchRelationships(s: Snapshot, prepared: PreparedName, minScore: number): RelationshipSearchHit[] {
  const listed = s.entities.length;
  const hits = s.index.search(prepared, {
    minScore,
    candidates: 100,
    accept: (ref) => ref >= listed || s.graph.hasRelations(ref),
  });
  const out: RelationshipSearchHit[] = [];
  for (const hit of hits) {
    const matchedName = s.index.texts[hit.name]!;
    const score = hit.alignment.score;
    if (hit.ref >= listed) {
      for (const id of s.graph.mentions[hit.ref - listed]!.edges) {
        const edge = s.graph.edges[id]!;
        out.push({ matchedName, score, related: s.entities[edge.from]!, edge });
      }
      continue;
    }
    for (const edge of s.graph.outbound(hit.ref)) if (edge.to >= 0) out.push({ matchedName, score, related: s.entities[edge.to]!, edge });
    for (const edge of s.graph.inbound(hit.ref)) out.push({ matchedName, score, related: s.entities[edge.from]!, edge });
  }
  return out;
}
