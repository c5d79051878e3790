import { RELATIONSHIP_TYPES, type RelationshipType, type SanctionEntity } from './entity.js';
import { countryCode, dobEffect, nationalityEffect } from './facts.js';
import { strongerFirst, type Edge } from './graph.js';
import type { PreparedName } from './align.js';
import type { Hit } from './index.js';
import { onlyInnerNamesMissing } from './reading-order.js';
import type { Snapshot } from './snapshot.js';
import { explain } from './explain.js';
import { DECISIONS, type Decision, type DirectMatch, type JudgementRule, type ScreenQuery, type Thresholds } from './match.js';

export { DECISIONS, type Decision, type DirectMatch, type JudgementRule, type ScreenQuery, type Thresholds };

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
  /** When no match counts: the best hit on a weak alias that the weak-alias rule left CLEAR. */
  weakAlias: DirectMatch | null;
  relationship: RelatedMatch | null;
  /** Direct candidates, best first (for agent lookups). */
  candidates: DirectMatch[];
}

const RANK: Record<Decision, number> = { CLEAR: 0, REVIEW: 1, BLOCK: 2 };
export const stricter = (a: Decision, b: Decision): Decision => (RANK[a] >= RANK[b] ? a : b);

/** Fewer candidates than this are kept for reporting below the review threshold. */
const REPORT_FLOOR = 0.6;

const onSanctionsList = (m: DirectMatch) => m.listings.some((e) => e.listType === 'sanctions');

/** The decision the score alone gives. */
export function scoreDecision(m: DirectMatch, t: Thresholds): Decision {
  if (m.score < t.review) return 'CLEAR';
  return m.score >= t.block && onSanctionsList(m) ? 'BLOCK' : 'REVIEW';
}

/** The score's decision, then the rule's bound: a weak alias caps it, a partial name raises it. */
export function judge(m: DirectMatch, t: Thresholds): Decision {
  const byScore = scoreDecision(m, t);
  if (m.rule === 'weak_alias') return byScore !== 'CLEAR' && m.agreeing.length > 0 ? 'REVIEW' : 'CLEAR';
  if (m.rule === 'inner_names_missing') return stricter(byScore, m.agreeing.length > 0 && onSanctionsList(m) ? 'BLOCK' : 'REVIEW');
  return byScore;
}

/** Attributes that agree: the effects computed, and the query's country among the record's addresses. */
function agreeingAttributes(entity: SanctionEntity, q: ScreenQuery, dob: number, nat: number): DirectMatch['agreeing'] {
  const out: DirectMatch['agreeing'] = [];
  if (dob > 0) out.push('dob');
  if (nat > 0) out.push('nationality');
  if (q.nationality && entity.addresses.some((a) => countryCode(a.country) === q.nationality)) out.push('country');
  return out;
}

/**
 * Which rule applies: a weak alias; or, for a person, a query that is the listed name less inner
 * words, unless the date of birth or nationality contradicts the record (then it is another person).
 */
function ruleOf(s: Snapshot, hit: Hit, entity: SanctionEntity, dob: number, nat: number): JudgementRule | null {
  if (hit.weak) return 'weak_alias';
  if (entity.type !== 'person' || dob < 0 || nat < 0) return null;
  const { pairs } = hit.alignment;
  const q = hit.query.tokens;
  // Cheap test first: every query token found exactly, and the listed name longer.
  if (pairs.length !== q.length || s.index.prepared(hit.name).tokens.length <= q.length || pairs.some((p) => p[2] < 1)) return null;
  return onlyInnerNamesMissing(q, s.index.texts[hit.name]!) ? 'inner_names_missing' : null;
}

function toDirect(s: Snapshot, hit: Hit, q: ScreenQuery, t: Thresholds): DirectMatch {
  const entity = s.entities[hit.ref]!;
  const nameScore = hit.alignment.score;
  const person = entity.type === 'person';
  const dob = person ? dobEffect(q.dob, entity.datesOfBirth) : 0;
  const nat = person ? nationalityEffect(q.nationality, entity.nationalities) : 0;
  const score = Math.max(0, Math.min(1, nameScore + dob + nat));
  const rule = ruleOf(s, hit, entity, dob, nat);
  const m: DirectMatch = {
    entity,
    listings: [entity],
    score,
    nameScore,
    matchedName: s.index.texts[hit.name]!,
    dobEffect: dob,
    nationalityEffect: nat,
    decision: 'CLEAR',
    rule,
    agreeing: rule ? agreeingAttributes(entity, q, dob, nat) : [],
    hit,
  };
  m.decision = judge(m, t);
  return m;
}

/** Sanctions lists before export-control and PEP lists when one party's records score alike. */
const LIST_RANK = { sanctions: 0, export_control: 1, pep: 2 } as const;

/**
 * One match per party, best first: the party's best-scoring record speaks for it (at the same
 * score a sanctions record before others, then the list loaded first: OFAC, UN, UK...), and its
 * listings name every record of the party.
 */
function byParty(s: Snapshot, candidates: DirectMatch[], t: Thresholds): DirectMatch[] {
  const strong = new Map<number, DirectMatch>();
  const weak = new Map<number, DirectMatch>();
  const before = (a: DirectMatch, b: DirectMatch) =>
    a.decision !== b.decision ? RANK[a.decision] > RANK[b.decision]
    : a.score !== b.score ? a.score > b.score
    : LIST_RANK[a.entity.listType] !== LIST_RANK[b.entity.listType] ? LIST_RANK[a.entity.listType] < LIST_RANK[b.entity.listType]
    : s.byId.get(a.entity.id)! < s.byId.get(b.entity.id)!;
  for (const c of candidates) {
    const party = s.parties.of[s.byId.get(c.entity.id)!]!;
    const best = c.hit.weak ? weak : strong;
    const prev = best.get(party);
    if (!prev || before(c, prev)) best.set(party, c);
  }
  // The name the query is closest to speaks for the party: a query nearer one of its weak aliases
  // than any of its other names is that weak alias (`Sinis NEDELJKOVIC`, weak, beside `NEDELJKOVIC, Sinisa`).
  for (const [party, w] of weak) {
    const st = strong.get(party);
    if (!st || w.nameScore > st.nameScore) strong.set(party, w);
  }
  const out = [...strong.values()];
  for (const m of out) {
    const members = s.parties.membersOf(s.byId.get(m.entity.id)!).map((i) => s.entities[i]!);
    if (members.length === 1) continue;
    m.listings = [m.entity, ...members.filter((e) => e !== m.entity)];
    // Another record of the party on a sanctions list can turn a REVIEW into a BLOCK.
    m.decision = judge(m, t);
  }
  return out.sort((a, b) => RANK[b.decision] - RANK[a.decision] || b.score - a.score);
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
  const hits = s.index.search(prepared, { minScore: REPORT_FLOOR, weakApart: true });
  const candidates: DirectMatch[] = [];
  let relationship: RelatedMatch | null = null;
  const allowed = new Set(rel.relationship_types);
  for (const hit of hits) {
    if (hit.ref < listed) candidates.push(toDirect(s, hit, q, t));
    else if (rel.enabled && !relationship && hit.alignment.score >= rel.min_score) relationship = relatedThrough(s, hit, allowed);
  }
  const parties = byParty(s, candidates, t);
  const top = parties[0];
  const match = top && top.decision !== 'CLEAR' ? top : null;
  const weakAlias = !match && top?.rule === 'weak_alias' && scoreDecision(top, t) !== 'CLEAR' ? top : null;
  for (const m of [match, weakAlias]) if (m) m.explanation = explain(s, m, q, t);
  let decision = match?.decision ?? 'CLEAR';
  if (relationship) decision = stricter(decision, rel.decision_escalation);
  return { decision, match, weakAlias, relationship, candidates: parties };
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
