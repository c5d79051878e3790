/**
 * Screening quality on the evaluation set of issue 16 (bench/screening-eval/set.ts), per class:
 * recall (REVIEW or BLOCK), top-match accuracy (the top match is the party the query was made
 * from), all-lists-named rate (the match names every record of a party listed several times) and
 * the false-positive rate on ordinary names of people and companies. Pure matching, every shared
 * list loaded. Writes bench/results/screening-eval.md.
 * Run: `npx tsx bench/screening-eval/run.ts [perClass=300]`.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshot } from '../../infra/sanctions/loader.js';
import { nameTokens } from '../../domain/screening/normalize.js';
import { DEFAULT_RELATIONSHIP_SETTINGS, DEFAULT_THRESHOLDS, screen } from '../../domain/screening/screen.js';
import { REAL_LISTS_DIR } from '../../test/fixtures/sanctions/paths.js';
import { CLASSES, evalCases, ordinaryCompanies, ordinaryPeople, sameParty, type EvalClass } from './set.js';

if (!REAL_LISTS_DIR) throw new Error('the shared sanctions data folder (../shared/data/sanctions) is missing');
const perClass = Number(process.argv[2] ?? 300);
const s = await loadSnapshot(REAL_LISTS_DIR);
const truth = sameParty(s.entities);
const partyOf = (id: string) => truth.get(id) ?? new Set([id]);
const run = (name: string, facts: { dob?: string; nationality?: string } = {}) =>
  screen(s, s.index.prepare(name), { name, ...facts }, DEFAULT_THRESHOLDS, DEFAULT_RELATIONSHIP_SETTINGS);

interface Tally {
  cases: number;
  flagged: number;
  top: number;
  multi: number;
  allNamed: number;
  misses: string[];
}
const tallies = new Map<EvalClass, Tally>(CLASSES.map((c) => [c, { cases: 0, flagged: 0, top: 0, multi: 0, allNamed: 0, misses: [] }]));
const cases = evalCases(s.entities, perClass);
for (const c of cases) {
  const t = tallies.get(c.class)!;
  const r = run(c.query, { dob: c.dob, nationality: c.nationality });
  const party = partyOf(c.entityId);
  const named = new Set((r.match?.listings ?? []).map((e) => e.id));
  t.cases++;
  if (r.decision !== 'CLEAR') t.flagged++;
  if ([...party].some((id) => named.has(id))) t.top++;
  else if (t.misses.length < 12) t.misses.push(`"${c.query}" (${c.entityId}) -> ${r.decision} ${r.match ? `${r.match.entity.id} "${r.match.matchedName}" ${r.match.score.toFixed(3)}` : ''}`);
  if (party.size > 1) {
    t.multi++;
    if ([...party].every((id) => named.has(id))) t.allNamed++;
  }
}

const listedKeys = new Set(s.entities.flatMap((e) => e.names.map((n) => nameTokens(n.name).sort().join(' '))));
const people = ordinaryPeople(listedKeys, 2000, 4242);
const companies = ordinaryCompanies(600).filter((n) => !listedKeys.has(nameTokens(n).sort().join(' ')));
const falsePositives = (names: string[]) => names.filter((n) => run(n).decision !== 'CLEAR');
const fpPeople = falsePositives(people);
const fpCompanies = falsePositives(companies);

const all = [...tallies.values()].reduce((a, t) => ({ cases: a.cases + t.cases, flagged: a.flagged + t.flagged, top: a.top + t.top, multi: a.multi + t.multi, allNamed: a.allNamed + t.allNamed }), { cases: 0, flagged: 0, top: 0, multi: 0, allNamed: 0 });
const f = (n: number, d: number) => (d === 0 ? 'n/a' : (n / d).toFixed(3));
const lines = [
  '| class | cases | recall | top match is the party | parties on several lists | all lists named |',
  '|---|---:|---:|---:|---:|---:|',
  ...[...tallies].map(([c, t]) => `| ${c} | ${t.cases} | ${f(t.flagged, t.cases)} | ${f(t.top, t.cases)} | ${t.multi} | ${f(t.allNamed, t.multi)} |`),
  `| **all** | ${all.cases} | ${f(all.flagged, all.cases)} | ${f(all.top, all.cases)} | ${all.multi} | ${f(all.allNamed, all.multi)} |`,
  '',
  `False positives: ordinary people ${fpPeople.length} / ${people.length} (${f(fpPeople.length, people.length)}), ordinary companies ${fpCompanies.length} / ${companies.length} (${f(fpCompanies.length, companies.length)}).`,
  '',
  `Lists: ${s.lists.map((l) => `${l.list} ${l.entities}`).join(', ')}; list version ${s.version}; ${perClass} cases per class (fewer where the lists hold fewer fitting names).`,
  '',
  '<details><summary>Misses and wrong top matches (first 12 per class) and false positives</summary>',
  '',
  ...[...tallies].flatMap(([c, t]) => (t.misses.length ? [`- ${c}:`, ...t.misses.map((m) => `  - ${m}`)] : [])),
  ...[...fpPeople, ...fpCompanies].map((n) => `- false positive: "${n}" -> ${run(n).match?.matchedName ?? run(n).relationship?.matchedName}`),
  '',
  '</details>',
];
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'results', 'screening-eval.md');
await writeFile(out, `# Screening evaluation (issue 16)\n\nProduced by \`npx tsx bench/screening-eval/run.ts ${perClass}\` on ${new Date().toISOString()}.\n\n${lines.join('\n')}\n`);
console.log(lines.join('\n'));
process.exit(0);
