import type { SanctionEntity } from '../../domain/screening/entity.js';
import { foldName, nameTokens } from '../../domain/screening/normalize.js';
import { negativeCases, rng } from '../../test/fixtures/sanctions/eval-set.js';
import { readingOrder } from '../../domain/screening/reading-order.js';

/**
 * The screening evaluation set of issue 16, generated from the loaded lists with fixed seeds (the
 * lists stay outside the repository): one perturbation per query, by class, plus ordinary names
 * of people and companies that are not listed. Separate from the unit tests' fixtures
 * (test/fixtures/sanctions/eval-set.ts), whose classes it does not share.
 */
export const CLASSES = [
  'exact',
  'legal_form_added',
  'legal_form_dropped',
  'legal_form_variant',
  'typo_short',
  'typo_long',
  'transposition',
  'transliteration',
  'with_facts',
  'several_lists',
  'first_and_last',
] as const;
export type EvalClass = (typeof CLASSES)[number];

export interface EvalCase {
  class: EvalClass;
  query: string;
  /** The record the query was made from. */
  entityId: string;
  dob?: string;
  nationality?: string;
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Legal forms as companies write them, grouped by what they abbreviate (a query's variant stays in its group). */
const FORM_GROUPS: string[][] = [
  ['LLC', 'L.L.C.', 'Limited Liability Company', 'OOO', 'ООО', 'TOO', 'Obshchestvo s Ogranichennoy Otvetstvennostyu'],
  ['Ltd', 'Ltd.', 'Limited', 'Co., Ltd.', 'Company Limited', 'Co. Ltd'],
  ['JSC', 'AO', 'АО', 'Joint Stock Company', 'OJSC', 'PJSC', 'PAO', 'Aktsionernoe Obshchestvo'],
  ['Co.', 'Company', 'Co', '& Co.'],
  ['GmbH', 'G.m.b.H.'],
  ['S.A.', 'SA', 'Sociedad Anonima', 'S.A. de C.V.'],
  ['Inc.', 'Incorporated', 'Corp.', 'Corporation'],
  ['FZE', 'FZCO', 'FZ-LLC'],
];
const ALL_FORMS = FORM_GROUPS.flat();
/** Word sequences of the forms, folded, longest first (so `co ltd` is found before `co`). */
const FOLDED_FORMS = [...new Set(ALL_FORMS.map((f) => foldName(f)))].sort((a, b) => b.length - a.length);

/** The legal form a company name ends with (or starts with), and the name without it (folded, upper case). */
function splitForm(name: string): { form: string; rest: string; group: number } | null {
  const folded = foldName(name);
  for (const f of FOLDED_FORMS) {
    const rest = folded.endsWith(` ${f}`) ? folded.slice(0, -f.length - 1) : folded.startsWith(`${f} `) ? folded.slice(f.length + 1) : null;
    if (rest === null || nameTokens(rest).length === 0) continue;
    return { form: f, rest: rest.toUpperCase(), group: FORM_GROUPS.findIndex((g) => g.some((x) => foldName(x) === f)) };
  }
  return null;
}

const KEYS = 'qwertyuiopasdfghjklzxcvbnm';

/** One substitution, deletion or insertion in a word of the given lengths. */
function typo(r: Rand, words: string[], min: number, max: number): string[] | null {
  const fit = words.map((w, i) => [w, i] as const).filter(([w]) => /^[A-Za-z]+$/.test(w) && w.length >= min && w.length <= max);
  if (fit.length === 0) return null;
  const [w, i] = pick(r, fit);
  const pos = Math.floor(r() * w.length);
  const kind = Math.floor(r() * 3);
  const ch = pick(r, KEYS.split(''));
  const c = w === w.toUpperCase() ? ch.toUpperCase() : ch;
  const v = kind === 0 ? w.slice(0, pos) + c + w.slice(pos + 1) : kind === 1 ? w.slice(0, pos) + w.slice(pos + 1) : w.slice(0, pos) + c + w.slice(pos);
  if (v.toLowerCase() === w.toLowerCase()) return null;
  return words.map((x, j) => (j === i ? v : x));
}

function transposition(r: Rand, words: string[]): string[] | null {
  const fit = words.map((w, i) => [w, i] as const).filter(([w]) => /^[A-Za-z]{4,}$/.test(w));
  if (fit.length === 0) return null;
  const [w, i] = pick(r, fit);
  const pos = Math.floor(r() * (w.length - 1));
  if (w[pos]!.toLowerCase() === w[pos + 1]!.toLowerCase()) return null;
  return words.map((x, j) => (j === i ? w.slice(0, pos) + w[pos + 1] + w[pos] + w.slice(pos + 2) : x));
}

/** Spellings of the same sounds in romanisations of Arabic, Persian, Russian and Chinese. */
const SPELLINGS: [RegExp, string][] = [
  [/ou/i, 'u'], [/kh/i, 'h'], [/y/i, 'i'], [/iy/i, 'i'], [/ee/i, 'i'], [/q/i, 'k'], [/j/i, 'dj'], [/sh/i, 'sch'], [/ei/i, 'ey'],
  [/v\b/i, 'ff'], [/ch/i, 'tch'], [/zh/i, 'j'], [/ts/i, 'tz'], [/u/i, 'oo'], [/w/i, 'v'], [/ph/i, 'f'], [/dh/i, 'd'], [/e\b/i, 'a'],
];

function transliteration(r: Rand, words: string[]): string[] | null {
  const isWord = (w: string) => /^[A-Za-z-]{4,}$/.test(w);
  const options = SPELLINGS.filter(([re]) => words.some((w) => isWord(w) && re.test(w)));
  if (options.length === 0) return null;
  const [re, to] = pick(r, options);
  const fit = words.map((w, i) => [w, i] as const).filter(([w]) => isWord(w) && re.test(w));
  const [w, i] = pick(r, fit);
  const v = w.replace(re, (m) => (m === m.toUpperCase() ? to.toUpperCase() : to));
  return words.map((x, j) => (j === i ? v : x));
}

const latin = (e: SanctionEntity) => e.names.filter((n) => /^[\x20-\x7e]+$/.test(n.name));
const latinNames = (e: SanctionEntity) => latin(e).map((n) => n.name);
/** Latin names other than weak aliases (alone those must stay CLEAR: weakAliasCases). */
const strongLatinNames = (e: SanctionEntity) => latin(e).filter((n) => !n.weak).map((n) => n.name);

/** A person's name of three words as `LAST, First Middle` or `First Middle Last`: its first and last word. */
function firstAndLast(written: string): string | null {
  const comma = written.indexOf(',');
  if (comma > 0 && written.slice(0, comma).trim().split(/\s+/).length !== 1) return null;
  const words = readingOrder(written).split(' ');
  const whole = nameTokens(readingOrder(written));
  if (words.length !== 3 || whole.length !== 3 || !words.every((w, i) => /^[A-Za-z][A-Za-z'-]+$/.test(w) && nameTokens(w).join() === whole[i])) return null;
  return `${words[0]} ${words[2]}`;
}

/** Ids of the records the publishers say are one party with `e`, both ways, plus records of the same type and the very same primary name. */
export function sameParty(entities: readonly SanctionEntity[]): Map<string, Set<string>> {
  const ids = new Set(entities.map((e) => e.id));
  const groups = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    if (!ids.has(b)) return;
    const ga = groups.get(a) ?? new Set([a]);
    const gb = groups.get(b) ?? new Set([b]);
    const all = new Set([...ga, ...gb]);
    for (const id of all) groups.set(id, all);
  };
  const byName = new Map<string, string>();
  for (const e of entities) {
    for (const id of e.sameAs) link(e.id, id);
    const key = `${e.type}\0${(e.names[0]?.name ?? '').toLowerCase().replace(/\s+/g, ' ')}`;
    const first = byName.get(key);
    if (first) link(first, e.id);
    else byName.set(key, e.id);
  }
  return groups;
}

/** `perClass` cases per class, drawn with a fixed seed. */
export function evalCases(entities: readonly SanctionEntity[], perClass: number, seed = 16): EvalCase[] {
  const r = rng(seed);
  const pool = entities.filter((e) => (e.type === 'person' || e.type === 'organization') && latinNames(e).some((n) => nameTokens(n).join('').length >= 4));
  const orgs = pool.filter((e) => e.type === 'organization');
  const persons = pool.filter((e) => e.type === 'person');
  const parties = sameParty(entities);
  const multi = pool.filter((e) => (parties.get(e.id)?.size ?? 1) > 1);
  const out: EvalCase[] = [];
  const make = (cls: EvalClass, from: readonly SanctionEntity[], f: (e: SanctionEntity, words: string[]) => Omit<EvalCase, 'class' | 'entityId'> | null) => {
    let made = 0;
    for (let tries = 0; made < perClass && tries < perClass * 200; tries++) {
      const e = pick(r, from);
      // Drawn as before weak aliases were told apart (the same draws, so figures compare with
      // earlier runs); a weak alias drawn stands for the party's primary name.
      const drawn = pick(r, latin(e));
      const written = drawn.weak ? (latin(e).find((n) => !n.weak)?.name ?? drawn.name) : drawn.name;
      const name = e.type === 'person' ? readingOrder(written) : written;
      const c = f(e, name.split(' '));
      if (!c || foldName(c.query) === '' || (cls !== 'exact' && cls !== 'several_lists' && foldName(c.query) === foldName(name))) continue;
      out.push({ class: cls, entityId: e.id, ...c });
      made++;
    }
  };
  const q = (words: string[] | null) => (words ? { query: words.join(' ') } : null);
  make('exact', pool, (_e, w) => q(w));
  make('legal_form_added', orgs, (_e, w) => (splitForm(w.join(' ')) ? null : { query: `${w.join(' ')} ${pick(r, ALL_FORMS)}` }));
  make('legal_form_dropped', orgs, (_e, w) => {
    const s = splitForm(w.join(' '));
    return s ? { query: s.rest } : null;
  });
  make('legal_form_variant', orgs, (_e, w) => {
    const s = splitForm(w.join(' '));
    if (!s || s.group < 0) return null;
    const other = FORM_GROUPS[s.group]!.filter((f) => foldName(f) !== s.form);
    return { query: `${s.rest} ${pick(r, other)}` };
  });
  make('typo_short', pool, (_e, w) => q(typo(r, w, 4, 6)));
  make('typo_long', pool, (_e, w) => q(typo(r, w, 7, 30)));
  make('transposition', pool, (_e, w) => q(transposition(r, w)));
  make('transliteration', pool, (_e, w) => q(transliteration(r, w)));
  make('with_facts', persons, (e, w) => {
    const dob = e.datesOfBirth.find((d) => /^\d{4}-\d{2}-\d{2}$/.test(d));
    const nationality = e.nationalities.find((n) => /^[A-Z]{2}$/.test(n));
    const t = typo(r, w, 4, 30);
    return dob && t ? { query: t.join(' '), dob, ...(nationality ? { nationality } : {}) } : null;
  });
  make('several_lists', multi, (_e, w) => q(w));
  make('first_and_last', persons.filter((e) => strongLatinNames(e).some((n) => firstAndLast(n))), (e) => {
    const written = pick(r, strongLatinNames(e).filter((n) => firstAndLast(n)));
    return { query: firstAndLast(written)! };
  });
  return out;
}

/** Listed names holding a word at least this often make it a common word of names. */
const COMMON_WORD = 20;

/**
 * Weak aliases of common names (every word held by at least COMMON_WORD listed names, as
 * `MOHAMMED, Ali`), of two words or more, that no record holds as an ordinary name, as queries
 * without date of birth or nationality: negatives, each must stay CLEAR.
 */
export function weakAliasCases(entities: readonly SanctionEntity[], count: number, seed = 3333): { query: string; entityId: string }[] {
  const ordinary = entities.flatMap((e) => e.names.filter((n, k) => k === 0 || !n.weak).map((n) => nameTokens(n.name)));
  const strong = new Set(ordinary.map((t) => [...t].sort().join(' ')));
  const held = new Map<string, number>();
  for (const tokens of ordinary) for (const t of new Set(tokens)) held.set(t, (held.get(t) ?? 0) + 1);
  const fits = (name: string) => {
    const tokens = nameTokens(name);
    return tokens.length >= 2 && tokens.every((t) => (held.get(t) ?? 0) >= COMMON_WORD) && !strong.has([...tokens].sort().join(' '));
  };
  const pool = entities.flatMap((e) => (e.type !== 'person' ? [] : e.names.filter((n) => n.weak && /^[\x20-\x7e]+$/.test(n.name) && fits(n.name)).map((n) => ({ query: readingOrder(n.name), entityId: e.id }))));
  const seen = new Set<string>();
  const unique = pool.filter((c) => !seen.has(c.query.toLowerCase()) && seen.add(c.query.toLowerCase()));
  const r = rng(seed);
  for (let i = unique.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [unique[i], unique[j]] = [unique[j]!, unique[i]!];
  }
  return unique.slice(0, count);
}
/** Ordinary company names that are not listed: a surname or place, a trade, a legal form. */
const TRADES = ['Trading', 'Logistics', 'Consulting', 'Foods', 'Textiles', 'Software', 'Construction', 'Holdings', 'Motors', 'Pharma', 'Bakery', 'Furniture', 'Travel', 'Dental', 'Printing'];
const STEMS = ['Greenfield', 'Riverside', 'Oakwood', 'Bluewater', 'Northgate', 'Sunrise', 'Harbourview', 'Maple', 'Silverline', 'Redhill', 'Westbrook', 'Lakeside', 'Hillcrest', 'Stonebridge', 'Fairview'];

export function ordinaryCompanies(count: number, seed = 1616): string[] {
  const r = rng(seed);
  const out = new Set<string>();
  while (out.size < count) out.add(`${pick(r, STEMS)} ${pick(r, TRADES)} ${pick(r, ALL_FORMS)}`);
  return [...out];
}

export { negativeCases as ordinaryPeople };

/**
 * The query mix of the screening load benchmarks (bench/screening-load.ts, the peers pair):
 * perturbed listed names of every class and ordinary names, one to one.
 */
export function loadMix(entities: readonly SanctionEntity[]): string[] {
  const listed = evalCases(entities, 100, 77).map((c) => c.query);
  const listedKeys = new Set(entities.flatMap((e) => e.names.map((n) => nameTokens(n.name).sort().join(' '))));
  const ordinary = negativeCases(listedKeys, listed.length, 78);
  return listed.flatMap((q, i) => [q, ordinary[i]!]);
}
