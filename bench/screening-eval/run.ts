/**
 * Screening quality on the evaluation set of issue 16 (bench/screening-eval/set.ts), per class:
 * recall (REVIEW or BLOCK), top-match accuracy (the top match is the party the query was made
 * from), all-lists-named rate (the match names every record of a party listed several times) and
 * the false-positive rate on ordinary names of people and companies. Pure matching, every shared
 * list loaded. Writes bench/results/screening-eval.md.
 * With `--baseline=DIR` (a checkout of another version, e.g. main, with its node_modules) the same
 * cases are also screened by that version's code, for a before/after comparison on one set.
 * Run: `npx tsx bench/screening-eval/run.ts [perClass=300] [--baseline=DIR]`.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshot } from '../../infra/sanctions/loader.js';
import { nameTokens } from '../../domain/screening/normalize.js';
import { DEFAULT_RELATIONSHIP_SETTINGS, DEFAULT_THRESHOLDS, screen } from '../../domain/screening/screen.js';
import { REAL_LISTS_DIR } from '../../test/fixtures/sanctions/paths.js';
import { CLASSES, evalCases, ordinaryCompanies, ordinaryPeople, sameParty, weakAliasCases, type EvalClass } from './set.js';

if (!REAL_LISTS_DIR) throw new Error('the shared sanctions data folder (../shared/data/sanctions) is missing');
const listsDir = REAL_LISTS_DIR;
const perClass = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 300);
const baselineDir = process.argv.find((a) => a.startsWith('--baseline='))?.slice('--baseline='.length);
const s = await loadSnapshot(listsDir);
const truth = sameParty(s.entities);
const partyOf = (id: string) => truth.get(id) ?? new Set([id]);
type Facts = { dob?: string; nationality?: string };
/** What the comparison reads of a screening, in any version. */
interface Outcome {
  decision: string;
  match: { entity: { id: string }; listings: { id: string }[]; matchedName: string; score: number; rule?: string | null } | null;
  relationship: { matchedName: string } | null;
}
const run = (name: string, facts: Facts = {}): Outcome => screen(s, s.index.prepare(name), { name, ...facts }, DEFAULT_THRESHOLDS, DEFAULT_RELATIONSHIP_SETTINGS);
const runBefore = baselineDir ? await baseline(path.resolve(baselineDir)) : null;

/** The screen of the version checked out in `dir`, on its own snapshot of the same lists. */
async function baseline(dir: string): Promise<(name: string, facts?: Facts) => Outcome> {
  type Screen = (snapshot: unknown, prepared: unknown, q: object, t: unknown, rel: unknown) => Outcome;
  const loader = (await import(path.join(dir, 'infra/sanctions/loader.ts'))) as { loadSnapshot(dir: string): Promise<{ index: { prepare(n: string): unknown } }> };
  const m = (await import(path.join(dir, 'domain/screening/screen.ts'))) as { screen: Screen; DEFAULT_THRESHOLDS: unknown; DEFAULT_RELATIONSHIP_SETTINGS: unknown };
  const old = await loader.loadSnapshot(listsDir);
  return (name, facts = {}) => m.screen(old, old.index.prepare(name), { name, ...facts }, m.DEFAULT_THRESHOLDS, m.DEFAULT_RELATIONSHIP_SETTINGS);
}

interface Tally {
  cases: number;
  flagged: number;
  flaggedBefore: number;
  top: number;
  multi: number;
  allNamed: number;
  misses: string[];
}
const tallies = new Map<EvalClass, Tally>(CLASSES.map((c) => [c, { cases: 0, flagged: 0, flaggedBefore: 0, top: 0, multi: 0, allNamed: 0, misses: [] }]));
const describe = (r: Outcome) => (r.match ? `${r.match.entity.id} "${r.match.matchedName}" ${r.match.score.toFixed(3)}${r.match.rule ? ` (${r.match.rule})` : ''}` : (r.relationship?.matchedName ?? ''));
for (const c of evalCases(s.entities, perClass)) {
  const t = tallies.get(c.class)!;
  const facts = { dob: c.dob, nationality: c.nationality };
  const r = run(c.query, facts);
  const party = partyOf(c.entityId);
  const named = new Set((r.match?.listings ?? []).map((e) => e.id));
  t.cases++;
  if (r.decision !== 'CLEAR') t.flagged++;
  if (runBefore && runBefore(c.query, facts).decision !== 'CLEAR') t.flaggedBefore++;
  if ([...party].some((id) => named.has(id))) t.top++;
  else if (t.misses.length < 12) t.misses.push(`"${c.query}" (${c.entityId}) -> ${r.decision} ${describe(r)}`);
  if (party.size > 1) {
    t.multi++;
    if ([...party].every((id) => named.has(id))) t.allNamed++;
  }
}

const listedKeys = new Set(s.entities.flatMap((e) => e.names.map((n) => nameTokens(n.name).sort().join(' '))));
const people = ordinaryPeople(listedKeys, 2000, 4242);
const companies = ordinaryCompanies(600).filter((n) => !listedKeys.has(nameTokens(n).sort().join(' ')));
// A weak alias alone is a false positive when it flags its own party; a match on another party's
// ordinary name is ordinary screening (`Mohammed IBRAHIM`, weak alias of one party, is `IBRAHIM, Muhammad` of another).
const weakCases = weakAliasCases(s.entities, perClass);
const onOwnParty = (r: Outcome, entityId: string | undefined) => entityId === undefined || [...partyOf(entityId)].some((id) => (r.match?.listings ?? []).some((e) => e.id === id));
const negatives = (cases: { query: string; entityId?: string }[], screenWith: (n: string) => Outcome) =>
  cases.filter((c) => {
    const r = screenWith(c.query);
    return r.decision !== 'CLEAR' && onOwnParty(r, c.entityId);
  }).map((c) => c.query);
const negativeClasses: [string, { query: string; entityId?: string }[]][] = [
  ['ordinary people', people.map((query) => ({ query }))],
  ['ordinary companies', companies.map((query) => ({ query }))],
  ['weak aliases of common names, alone (flagging their own party)', weakCases],
];
const fp = negativeClasses.map(([label, cs]) => ({ label, cases: cs.length, flagged: negatives(cs, run), before: runBefore ? negatives(cs, runBefore).length : null }));
const otherParty = weakCases.filter((c) => run(c.query).decision !== 'CLEAR').length - fp[2]!.flagged.length;

const all = [...tallies.values()].reduce((a, t) => ({ cases: a.cases + t.cases, flagged: a.flagged + t.flagged, flaggedBefore: a.flaggedBefore + t.flaggedBefore, top: a.top + t.top, multi: a.multi + t.multi, allNamed: a.allNamed + t.allNamed }), { cases: 0, flagged: 0, flaggedBefore: 0, top: 0, multi: 0, allNamed: 0 });
const f = (n: number, d: number) => (d === 0 ? 'n/a' : (n / d).toFixed(3));
const before = (n: number, d: number) => (runBefore ? ` ${f(n, d)} |` : '');
const fpAll = fp.reduce((a, x) => ({ cases: a.cases + x.cases, flagged: a.flagged + x.flagged.length, before: a.before + (x.before ?? 0) }), { cases: 0, flagged: 0, before: 0 });
const lines = [
  `| class | cases |${runBefore ? ' recall before |' : ''} recall | top match is the party | parties on several lists | all lists named |`,
  `|---|---:|${runBefore ? '---:|' : ''}---:|---:|---:|---:|`,
  ...[...tallies].map(([c, t]) => `| ${c} | ${t.cases} |${before(t.flaggedBefore, t.cases)} ${f(t.flagged, t.cases)} | ${f(t.top, t.cases)} | ${t.multi} | ${f(t.allNamed, t.multi)} |`),
  `| **all** | ${all.cases} |${before(all.flaggedBefore, all.cases)} ${f(all.flagged, all.cases)} | ${f(all.top, all.cases)} | ${all.multi} | ${f(all.allNamed, all.multi)} |`,
  '',
  `| negative class | cases |${runBefore ? ' false positives before |' : ''} false positives | rate |`,
  `|---|---:|${runBefore ? '---:|' : ''}---:|---:|`,
  ...fp.map((x) => `| ${x.label} | ${x.cases} |${runBefore ? ` ${x.before} (${f(x.before!, x.cases)}) |` : ''} ${x.flagged.length} | ${f(x.flagged.length, x.cases)} |`),
  `| **all** | ${fpAll.cases} |${runBefore ? ` ${fpAll.before} (${f(fpAll.before, fpAll.cases)}) |` : ''} ${fpAll.flagged} | ${f(fpAll.flagged, fpAll.cases)} |`,
  '',
  `Weak aliases of common names flagged through another party's ordinary name (not false positives of the weak-alias rule): ${otherParty} of ${weakCases.length}.`,
  '',
  `Lists: ${s.lists.map((l) => `${l.list} ${l.entities}`).join(', ')}; list version ${s.version}; ${perClass} cases per class (fewer where the lists hold fewer fitting names).`,
  '',
  '<details><summary>Misses and wrong top matches (first 12 per class) and false positives</summary>',
  '',
  ...[...tallies].flatMap(([c, t]) => (t.misses.length ? [`- ${c}:`, ...t.misses.map((m) => `  - ${m}`)] : [])),
  ...fp.flatMap((x) => x.flagged.map((n) => `- false positive (${x.label}): "${n}" -> ${describe(run(n))}`)),
  '',
  '</details>',
];
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'results', 'screening-eval.md');
const command = `npx tsx bench/screening-eval/run.ts ${perClass}${baselineDir ? ' --baseline=<a checkout of main>' : ''}`;
await writeFile(out, `# Screening evaluation (issues 16 and 33)\n\nProduced by \`${command}\` on ${new Date().toISOString()}.\n\n${lines.join('\n')}\n`);
console.log(lines.join('\n'));
process.exit(0);
