import { CANDIDATE_COVERAGE_WEIGHT } from './align.js';
import { countryCode } from './facts.js';
import type { AttributeEffect, DirectMatch, Explanation, ScreenQuery, Thresholds, TokenAlignment } from './match.js';
import type { Snapshot } from './snapshot.js';

const verdict = (effect: number, agrees: boolean): AttributeEffect['verdict'] => (agrees ? 'agrees' : effect < 0 ? 'contradicts' : 'neutral');

function attributes(m: DirectMatch, q: ScreenQuery): AttributeEffect[] {
  const e = m.entity;
  const out: AttributeEffect[] = [];
  if (q.dob) out.push({ attribute: 'dob', given: q.dob, listed: e.datesOfBirth, effect: m.dobEffect, verdict: verdict(m.dobEffect, m.dobEffect > 0) });
  if (q.nationality) {
    out.push({ attribute: 'nationality', given: q.nationality, listed: e.nationalities, effect: m.nationalityEffect, verdict: verdict(m.nationalityEffect, m.nationalityEffect > 0) });
    const countries = [...new Set(e.addresses.map((a) => countryCode(a.country) ?? a.country).filter(Boolean))];
    if (countries.length > 0) out.push({ attribute: 'country', given: q.nationality, listed: countries, effect: 0, verdict: countries.includes(q.nationality) ? 'agrees' : 'neutral' });
  }
  return out;
}

function ruleEffect(m: DirectMatch, t: Thresholds): string | null {
  const agreeing = m.agreeing.length > 0 ? `${m.agreeing.join(' and ')} agree${m.agreeing.length === 1 ? 's' : ''}` : 'no second attribute agrees';
  if (m.rule === 'weak_alias') {
    return m.score < t.review
      ? `weak alias: the score is under REVIEW anyway`
      : `weak alias, too common to identify the party alone: at most REVIEW, and only with a second agreeing attribute; ${agreeing}, so ${m.decision}`;
  }
  if (m.rule === 'inner_names_missing') {
    return `the query is the listed name without its middle names or patronymics: at least REVIEW, BLOCK when a second attribute agrees on a sanctions list; ${agreeing}, so ${m.decision}`;
  }
  return null;
}

/** Writes out how `m` was scored and decided for query `q`. */
export function explain(s: Snapshot, m: DirectMatch, q: ScreenQuery, t: Thresholds): Explanation {
  const { hit } = m;
  const query = hit.query;
  const listed = s.index.prepared(hit.name);
  const tokens: TokenAlignment[] = [];
  const pairedListed = new Set<number>();
  query.spellings.forEach((w, i) => {
    const pair = hit.alignment.pairs.find((p) => p[0] === i);
    if (pair) pairedListed.add(pair[1]);
    tokens.push({ query: w, listed: pair ? listed.spellings[pair[1]]! : null, similarity: round(pair?.[2] ?? 0), weight: round(query.weights[i]!) });
  });
  listed.spellings.forEach((w, j) => {
    if (!pairedListed.has(j)) tokens.push({ query: null, listed: w, similarity: 0, weight: round(listed.weights[j]!) });
  });
  const index = m.entity.names.findIndex((n) => n.name === m.matchedName);
  return {
    matchedName: m.matchedName,
    nameKind: index === 0 ? 'primary' : hit.weak ? 'weak' : 'strong',
    nameScore: round(m.nameScore),
    queryCoverage: round(hit.alignment.queryCoverage),
    listedCoverage: round(hit.alignment.candidateCoverage),
    listedCoverageWeight: CANDIDATE_COVERAGE_WEIGHT,
    tokens,
    attributes: attributes(m, q),
    rule: m.rule,
    ruleEffect: ruleEffect(m, t),
    thresholds: { ...t },
    score: round(m.score),
    decision: m.decision,
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;
