import anyAscii from 'any-ascii';

/**
 * Name normalisation, applied identically at index time and query time (watchman's prepare
 * pipeline): transliterate to ASCII, lower-case, drop apostrophes, split on punctuation, then drop
 * honorifics, company suffixes and name particles that carry no identity.
 */

const HONORIFICS = new Set([
  'mr', 'mrs', 'ms', 'miss', 'mister', 'madam', 'dr', 'doctor', 'prof', 'professor', 'sir', 'dame', 'lord', 'lady',
  'sheikh', 'shaikh', 'shaykh', 'sheik', 'haji', 'hajji', 'hadji', 'mullah', 'mulla', 'maulana', 'maulvi', 'mawlawi',
  'imam', 'mufti', 'qari', 'sayyid', 'sayed', 'hon', 'honorable', 'rev', 'reverend', 'gen', 'general', 'col', 'colonel',
  'capt', 'captain', 'maj', 'major', 'lt', 'lieutenant', 'brig', 'brigadier', 'adm', 'admiral', 'sgt', 'engr', 'eng',
]);

/** Legal-form words: `Acme Trading LLC` and `Acme Trading Co Ltd` are the same name. */
const COMPANY_SUFFIXES = new Set([
  'ltd', 'limited', 'llc', 'llp', 'lp', 'inc', 'incorporated', 'co', 'corp', 'corporation', 'company', 'plc', 'jsc',
  'ojsc', 'pjsc', 'cjsc', 'ao', 'oao', 'zao', 'pao', 'ooo', 'gmbh', 'ag', 'kg', 'sa', 'sas', 'sarl', 'srl', 'spa', 'bv',
  'nv', 'ab', 'oy', 'kk', 'pte', 'pty', 'bhd', 'sdn', 'fze', 'fzco', 'fzc', 'fz', 'dmcc', 'sal', 'tic', 'as', 'aps',
  // Words of legal-form phrases: limited liability company, joint-stock company, and their Russian spellings.
  'liability', 'joint', 'stock', 'obshchestvo', 'ogranichennoi', 'ogranichennoy', 'otvetstvennostyu', 'aktsionernoe',
]);

/** Legal-form words of five letters or more are recognised through one slip of the keyboard (`COPMANY`, `JOIT`). */
const LONG_SUFFIXES = [...COMPANY_SUFFIXES].filter((w) => w.length >= 5);

function nearSuffix(t: string): boolean {
  if (t.length < 4) return false;
  return LONG_SUFFIXES.some((w) => Math.abs(w.length - t.length) <= 1 && withinOneEdit(t, w));
}

/** True when a and b differ by at most one substitution, insertion, deletion or adjacent swap. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const ra = a.slice(i + 1);
  const rb = b.slice(i + 1);
  return (
    ra === rb || // substitution
    a.slice(i) === rb || // insertion into a
    ra === b.slice(i) || // deletion from a
    (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2)) // swap
  );
}

/** Particles (al-, bin, van, de...) are spelled, joined and dropped inconsistently across sources. */
const PARTICLES = new Set(['al', 'el', 'ul', 'bin', 'ibn', 'bint', 'van', 'von', 'der', 'den', 'de', 'da', 'del', 'della', 'di', 'du', 'la', 'le', 'of', 'the', 'and']);

/** True for tokens that carry no identity: honorifics, legal forms, particles. */
export const isStopToken = (t: string) => HONORIFICS.has(t) || COMPANY_SUFFIXES.has(t) || PARTICLES.has(t) || nearSuffix(t);

/** ASCII, lower case, apostrophes removed, every other non-alphanumeric run turned into one space. */
const NON_ASCII = /[^ -~]/;
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/g;

export function foldName(text: string): string {
  // Most listed names are ASCII already; transliteration is the costly step of a load. A CJK
  // character is a syllable of its own: any-ascii would glue them together (`JinZhengEn`).
  return (NON_ASCII.test(text) ? anyAscii(text.replace(CJK, ' $& ')) : text)
    .toLowerCase()
    .replace(/['`\u00b4]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * One spelling for sounds that transliterations write several ways, applied to both sides of a
 * comparison: `Mokhammed`/`Mohammed`, `Dzhamal`/`Djamal`/`Jamal`, `Yuliya`/`Iuliia`, `Qods`/`Kods`,
 * `Younous`/`Yunus`, doubled letters.
 */
export function canonical(token: string): string {
  return token
    .replace(/dzh|dj/g, 'j')
    .replace(/kh/g, 'h')
    .replace(/ph/g, 'f')
    .replace(/ck/g, 'k')
    .replace(/c(?![eihy])/g, 'k')
    .replace(/q/g, 'k')
    .replace(/w/g, 'v')
    .replace(/x/g, 'ks')
    .replace(/ou/g, 'u')
    .replace(/ee/g, 'i')
    .replace(/oo/g, 'u')
    .replace(/y/g, 'i')
    .replace(/(.)\1+/g, '$1');
}

const CANONICAL_STOP = new Set([...HONORIFICS, ...COMPANY_SUFFIXES, ...PARTICLES].map(canonical));

/**
 * Canonical spelling of a folded token, or null for a token without identity. Memoised: a load
 * meets the same few tens of thousands of words hundreds of thousands of times. The memo is
 * dropped when it grows past MEMO_LIMIT (queries bring words of their own).
 */
const memo = new Map<string, string | null>();
const MEMO_LIMIT = 500_000;

function identityToken(t: string): string | null {
  let c = memo.get(t);
  if (c !== undefined) return c;
  if (memo.size >= MEMO_LIMIT) memo.clear();
  const canon = canonical(t);
  c = isStopToken(t) || CANONICAL_STOP.has(canon) ? null : canon;
  memo.set(t, c);
  return c;
}

/** The identity-bearing tokens of a name, in canonical spelling; never empty for a name with letters or digits. */
export function nameTokens(text: string): string[] {
  const all = foldName(text).split(' ').filter(Boolean);
  const kept: string[] = [];
  for (const t of all) {
    const c = identityToken(t);
    if (c !== null) kept.push(c);
  }
  return kept.length > 0 ? kept : all.map(canonical);
}

/** Consonant skeleton (`mohammed` -> `mhmd`): matches Arabic and Hebrew transliterations written without vowels. */
export function skeleton(token: string): string {
  const head = token[0] ?? '';
  const rest = token.slice(1).replace(/[aeiouyhw]/g, '');
  return (head + rest).replace(/(.)\1+/g, '$1');
}
