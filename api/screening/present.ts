import { primaryName, type SanctionEntity } from '../../domain/screening/entity.js';
import type { Edge } from '../../domain/screening/graph.js';
import type { DirectMatch, RelatedMatch } from '../../domain/screening/screen.js';
import type { Explanation } from '../../domain/screening/match.js';
import type { Snapshot } from '../../domain/screening/snapshot.js';

/** Wire shapes of Document 3 part A, built from domain results. */

const round = (n: number) => Math.round(n * 1000) / 1000;

export const presentExplanation = (x: Explanation) => ({
  matched_name: x.matchedName,
  name_kind: x.nameKind,
  name_score: x.nameScore,
  query_coverage: x.queryCoverage,
  listed_coverage: x.listedCoverage,
  listed_coverage_weight: x.listedCoverageWeight,
  tokens: x.tokens,
  attributes: x.attributes,
  rule: x.rule,
  rule_effect: x.ruleEffect,
  thresholds: x.thresholds,
  score: x.score,
  decision: x.decision,
});

export const presentMatch = (m: DirectMatch | null) =>
  m && {
    entity_id: m.entity.id,
    entity_name: primaryName(m.entity),
    source: m.entity.source,
    score: round(m.score),
    list_type: m.entity.listType,
    matched_name: m.matchedName,
    // One party on several lists is one match naming each of its records.
    listed_on: m.listings.map((e) => ({ entity_id: e.id, source: e.source, list_type: e.listType })),
    explanation: m.explanation ? presentExplanation(m.explanation) : null,
  };

export const presentRelationshipMatch = (r: RelatedMatch | null, escalation: 'REVIEW' | 'BLOCK') =>
  r && {
    related_to: { entity_id: r.related.id, entity_name: primaryName(r.related), source: r.related.source, list_type: r.related.listType },
    relationship: { type: r.edge.type, detail: r.edge.detail, confidence: r.edge.confidence },
    matched_name: r.matchedName,
    score: round(r.score),
    decision_reason: `name matches "${r.matchedName}" (score ${round(r.score)}), named in the ${r.related.source} record of ${primaryName(r.related)}: ${r.edge.detail} (${r.edge.type}, ${r.edge.confidence}); relationship matches escalate to ${escalation}`,
  };

/** The other party of an edge seen from `self`: a listed entity, or a name only mentioned in a remark. */
function otherParty(s: Snapshot, edge: Edge, self: number) {
  const outbound = edge.from === self;
  const other = outbound ? (edge.to >= 0 ? s.entities[edge.to]! : null) : s.entities[edge.from]!;
  return { outbound, other, name: other ? primaryName(other) : edge.targetName };
}

export function presentRelated(s: Snapshot, self: number, edges: Edge[]) {
  return edges.map((edge) => {
    const { outbound, other, name } = otherParty(s, edge, self);
    return {
      id: other?.id ?? null,
      name,
      relationship: edge.detail,
      relationship_type: edge.type,
      confidence: edge.confidence,
      source: other?.source ?? s.entities[self]!.source,
      direction: outbound ? 'outbound' : 'inbound',
    };
  });
}

export function presentEntityRelationships(s: Snapshot, self: number) {
  const e = s.entities[self]!;
  const edges = [...s.graph.outbound(self), ...s.graph.inbound(self)];
  const relationships: Record<string, unknown[]> = {};
  for (const edge of edges) {
    const { outbound, other, name } = otherParty(s, edge, self);
    (relationships[edge.type] ??= []).push({
      target_entity_name: name,
      target_entity_id: other?.id ?? null,
      relationship_detail: edge.detail,
      detail: edge.detail,
      confidence: edge.confidence,
      direction: outbound ? 'outbound' : 'inbound',
    });
  }
  return { entity: { id: e.id, name: primaryName(e), type: e.type, source: e.source }, total_relationships: edges.length, relationships };
}

export function relationshipStats(s: Snapshot) {
  const byType: Record<string, number> = {};
  const bySource: Record<string, number> = {};
  for (const edge of s.graph.edges) {
    byType[edge.type] = (byType[edge.type] ?? 0) + 1;
    const source = s.entities[edge.from]!.source;
    bySource[source] = (bySource[source] ?? 0) + 1;
  }
  return { total_relationships: s.graph.edges.length, by_type: byType, by_source: bySource };
}

export const citation = (e: SanctionEntity, version: string) => `${e.source} entity ${e.nativeId} (id ${e.id}), list version ${version}`;

const bullet = (label: string, values: string[]) => (values.length > 0 ? [`- **${label}:** ${values.join('; ')}`] : []);

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/** The explanation of a match as a markdown section. */
function explanationLines(x: Explanation): string[] {
  const tokens = x.tokens.map((t) => `\`${t.query ?? '—'}\` ↔ \`${t.listed ?? '—'}\` ${t.similarity}`);
  return [
    '',
    '### Why this matched',
    '',
    `- **Matched name:** ${x.matchedName} (${x.nameKind === 'weak' ? 'weak alias' : x.nameKind === 'strong' ? 'alias' : 'primary name'})`,
    `- **Name score:** ${x.nameScore} (query coverage ${x.queryCoverage}, listed-name coverage ${x.listedCoverage})`,
    `- **Words:** ${tokens.join('; ')}`,
    ...x.attributes.map((a) => `- **${a.attribute}:** ${a.given} against ${a.listed.join(', ') || 'none listed'}: ${a.verdict}${a.effect !== 0 ? ` (${signed(a.effect)})` : ''}`),
    ...(x.ruleEffect ? [`- **Rule:** ${x.ruleEffect}`] : []),
    `- **Decision:** ${x.decision} at score ${x.score} (REVIEW from ${x.thresholds.review}, BLOCK from ${x.thresholds.block})`,
  ];
}

/** A profile an agent can quote: facts of the record, its relationships, why it matched, and where each came from. */
export function markdownProfile(s: Snapshot, self: number, related: ReturnType<typeof presentRelated>, explanation?: Explanation): string {
  const e = s.entities[self]!;
  const lines = [
    `## ${primaryName(e)}`,
    '',
    `- **List:** ${e.source} (${e.listType})`,
    `- **Entity id:** ${e.id}`,
    `- **Type:** ${e.type}`,
    ...bullet('Programs', e.programs),
    ...bullet('Also known as', e.names.slice(1, 16).map((n) => [n.name, ...(n.kind === 'aka' ? [] : [`(${n.kind})`]), ...(n.weak ? ['(weak alias)'] : [])].join(' '))),
    ...bullet('Dates of birth', e.datesOfBirth.map((d) => d.replace('..', ' to '))),
    ...bullet('Nationalities', e.nationalities),
    ...bullet('Addresses', e.addresses.slice(0, 5).map((a) => [a.line, a.country].filter(Boolean).join(', '))),
  ];
  if (explanation) lines.push(...explanationLines(explanation));
  if (e.remarks) lines.push('', '### Remarks', '', `> ${e.remarks.slice(0, 1500)}${e.remarks.length > 1500 ? ' …' : ''}`);
  if (related.length > 0) {
    lines.push('', '### Relationships', '');
    for (const r of related) lines.push(`- ${r.direction === 'outbound' ? '→' : '←'} **${r.name}**${r.id ? ` (${r.id})` : ''}: ${r.relationship_type}, “${r.relationship}” (${r.confidence})`);
  }
  lines.push('', '### Source', '', `[1] ${citation(e, s.version)}`);
  return lines.join('\n');
}

export function relationshipSummary(e: SanctionEntity, related: ReturnType<typeof presentRelated>): string | null {
  if (related.length === 0) return null;
  const counts = new Map<string, number>();
  for (const r of related) counts.set(r.relationship_type, (counts.get(r.relationship_type) ?? 0) + 1);
  const parts = [...counts].map(([t, n]) => `${n} ${t}`);
  const named = related.slice(0, 3).map((r) => `${r.name} (${r.relationship_type}, ${r.confidence})`);
  return `${primaryName(e)} has ${related.length} recorded relationship${related.length === 1 ? '' : 's'} (${parts.join(', ')}), including ${named.join('; ')}.`;
}
