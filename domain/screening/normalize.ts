import anyAscii from 'any-ascii';
import unhomoglyph from 'unhomoglyph';
import { LEGAL_FORM_PHRASES, LEGAL_FORM_WORDS } from './legal-forms.js';

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

/** Legal-form words (`legal-forms.ts`): `Acme Trading LLC` and `Acme Trading Co Ltd` are the same name. */
const COMPANY_SUFFIXES = new Set(LEGAL_FORM_WORDS);
const FORM_PHRASES = new Set(LEGAL_FORM_PHRASES);
const LONGEST_PHRASE = Math.max(...LEGAL_FORM_PHRASES.map((p) => p.split(' ').length));

/**
 * Folded words without a legal form written in separate letters at the end (`s a de c v`; at the
 * start only of three letters or more: two are initials, `S A Rahman`), nor a letter inside a spelled-out form
 * (`obshchestvo s ogranichennoi otvetstvennostyu`).
 */
function withoutFormPhrases(words: readonly string[]): readonly string[] {
  let from = 0;
  let to = words.length;
  for (let n = Math.min(LONGEST_PHRASE, to - 1); n >= 2 && to - from > 1; n--) {
    if (FORM_PHRASES.has(words.slice(to - n, to).join(' '))) {
      to -= n;
      n = Math.min(LONGEST_PHRASE, to - from - 1) + 1;
    } else if (n >= 3 && FORM_PHRASES.has(words.slice(from, from + n).join(' '))) {
      from += n; // three letters or more at the start are a form too: `O.O.O. Romashka`
      n = Math.min(LONGEST_PHRASE, to - from - 1) + 1;
    }
  }
  return words.slice(from, to).filter((w, i, all) => w.length > 1 || !(COMPANY_SUFFIXES.has(all[i - 1] ?? '') && COMPANY_SUFFIXES.has(all[i + 1] ?? '')));
}

/** Legal-form words of five letters or more are recognised through one slip of the keyboard (`COPMANY`, `JOIT`). */
const LONG_SUFFIXES = [...COMPANY_SUFFIXES].filter((w) => w.length >= 5);

function nearSuffix(t: string): boolean {
  if (t.length < 4) return false;
  return LONG_SUFFIXES.some((w) => Math.abs(w.length - t.length) <= 1 && withinOneEdit(t, w));
}

/** True when a and b differ by at most one substitution, insertion, deletion or adjacent swap. */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  // Compared in place: this runs for every token pair a screen scores, and slices were garbage.
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return (
    sameFrom(a, i + 1, b, i + 1) || // substitution
    sameFrom(a, i, b, i + 1) || // insertion into a
    sameFrom(a, i + 1, b, i) || // deletion from a
    (a.charCodeAt(i) === b.charCodeAt(i + 1) && a.charCodeAt(i + 1) === b.charCodeAt(i) && sameFrom(a, i + 2, b, i + 2)) // swap
  );
}

/** a from ai equals b from bi (as `a.slice(ai) === b.slice(bi)`). */
function sameFrom(a: string, ai: number, b: string, bi: number): boolean {
  const n = Math.max(0, a.length - ai);
  if (n !== Math.max(0, b.length - bi)) return false;
  for (let k = 0; k < n; k++) if (a.charCodeAt(ai + k) !== b.charCodeAt(bi + k)) return false;
  return true;
}

/** Particles (al-, bin, van, de...) are spelled, joined and dropped inconsistently across sources. */
const PARTICLES = new Set(['al', 'el', 'ul', 'bin', 'ibn', 'bint', 'van', 'von', 'der', 'den', 'de', 'da', 'del', 'della', 'di', 'du', 'la', 'le', 'of', 'the', 'and']);

/** True for tokens that carry no identity: honorifics, legal forms, particles. */
export const isStopToken = (t: string) => HONORIFICS.has(t) || COMPANY_SUFFIXES.has(t) || PARTICLES.has(t) || nearSuffix(t);

/**
 * Folding a name to ASCII words. Only letters, combining marks and decimal digits carry a name:
 * symbols, emoji, invisible (format) characters and other numbers (`😀`, `♥`, `™`, `①`, U+200B)
 * are dropped before transliteration, so that they can never turn into words (`:grinning:`) that
 * would dilute the match. Punctuation and those dropped characters still break a word, but as a
 * *glued* break (`|`), which `rejoinedTokens` may undo: `Vla!!!dimir` is `vla|dimir`. Whitespace
 * is a word break proper.
 */
const GLUE = '|';
const PRINTABLE_ASCII = /^[ -~]*$/;
const ASCII_BREAKS = /[^a-z0-9]+/g;
const NAME_CHAR = /[\p{L}\p{M}\p{Nd}]/u;
const LETTER = /\p{L}/u;
const LATIN_LETTER = /\p{Script=Latin}/u;
const APOSTROPHES = /['`\u00b4\u2018\u2019\u02bb\u02bc\u2032]/g;
const APOSTROPHE = new RegExp(APOSTROPHES.source);
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;

/** Lower case, apostrophes dropped, every other run of non-alphanumerics one break (a space if it holds one). */
function foldAscii(text: string): string {
  return text
    .toLowerCase()
    .replace(APOSTROPHES, '')
    .replace(ASCII_BREAKS, (run) => (/\s/.test(run) ? ' ' : GLUE));
}

/** Transliteration of one character; memoised (a load meets the same few thousand characters again and again). */
const translit = new Map<string, string>();
function transliterate(ch: string): string {
  let t = translit.get(ch);
  if (t === undefined) {
    t = anyAscii(ch);
    // A letter that stands for a phrase (ﷺ, an honorific ligature) is no part of a name.
    if (/\s/.test(t.trim())) t = GLUE;
    else if (CJK.test(ch)) t = ` ${t} `; // a CJK character is a syllable of its own: `JinZhengEn` would glue them
    translit.set(ch, t);
  }
  return t;
}

/** Latin letter by Unicode confusable skeleton (UTS #39), upper and lower case apart (`I` and `l` share one). */
let latinBySkeleton: { upper: Map<string, string>; lower: Map<string, string> } | undefined;

/** The Latin letter a letter of another script looks like (Cyrillic `Р` -> `P`), or null. */
function lookAlike(ch: string): string | null {
  if (!latinBySkeleton) {
    latinBySkeleton = { upper: new Map(), lower: new Map() };
    for (let c = 65; c <= 90; c++) {
      const upper = String.fromCharCode(c);
      const lower = upper.toLowerCase();
      latinBySkeleton.upper.set(unhomoglyph(upper), upper);
      latinBySkeleton.lower.set(unhomoglyph(lower), lower);
    }
  }
  const table = ch === ch.toLowerCase() ? latinBySkeleton.lower : latinBySkeleton.upper;
  return table.get(unhomoglyph(ch)) ?? null;
}

/**
 * One word (no whitespace) to ASCII. In a word that mixes Latin letters with letters of another
 * script, those letters are look-alikes put in to evade (`Рutin` with a Cyrillic Р), read by what
 * they look like (`P`) rather than how they sound (`R`); a word in one script is transliterated,
 * unless `visual` asks for the reading by look of words made only of look-alikes (`РUТIN`).
 */
function foldWord(word: string, visual: boolean): string {
  const chars = [...word];
  const foreign = chars.filter((ch) => LETTER.test(ch) && !LATIN_LETTER.test(ch));
  const byLook = foreign.length > 0 && (LATIN_LETTER.test(word) || (visual && foreign.every((ch) => lookAlike(ch) !== null)));
  let out = '';
  for (const ch of chars) {
    if (ch.charCodeAt(0) < 0x80 || APOSTROPHE.test(ch)) out += ch;
    else if (!NAME_CHAR.test(ch)) out += GLUE;
    else if (byLook && LETTER.test(ch) && !LATIN_LETTER.test(ch)) out += lookAlike(ch) ?? transliterate(ch);
    else out += transliterate(ch);
  }
  return out;
}

/** The folded name with glued breaks marked (`vla|dimir putin`), no break at either end. */
function foldMarked(text: string, visual = false): string {
  const ascii = PRINTABLE_ASCII.test(text) ? text : text.split(/(\s+)/).map((w) => (/^\s*$/.test(w) ? w : foldWord(w, visual))).join('');
  return foldAscii(ascii)
    .replace(/[ |]{2,}/g, (run) => (run.includes(' ') ? ' ' : GLUE))
    .replace(/^[ |]+|[ |]+$/g, '');
}

/** ASCII, lower case, apostrophes removed, symbols dropped, every other non-alphanumeric run turned into one space. */
export function foldName(text: string): string {
  return foldMarked(text).replaceAll(GLUE, ' ');
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

const STOP_WORDS = [...HONORIFICS, ...COMPANY_SUFFIXES, ...PARTICLES];
const CANONICAL_STOP = new Set(STOP_WORDS.map(canonical));
const CANONICAL_STOP_3 = [...CANONICAL_STOP].filter((w) => w.length >= 3);
/** Stop words as written, by canonical spelling. */
const WRITTEN_STOP = new Map<string, string[]>();
for (const w of STOP_WORDS) WRITTEN_STOP.set(canonical(w), [...(WRITTEN_STOP.get(canonical(w)) ?? []), w]);

/**
 * A spelling of a stop word: the same canonical spelling and at most one edit from one as written.
 * Canonical spelling alone would also drop names: `Saeed` and `Sayyid` are both `said`.
 */
const stopSpelling = (t: string, canon: string) => WRITTEN_STOP.get(canon)?.some((w) => withinOneEdit(t, w)) ?? false;

/** True for a canonical token one slip away from an honorific, legal form or particle (`JOSC`, `GPBH`, `AHJI`). */
export function nearStopToken(t: string): boolean {
  return t.length >= 3 && CANONICAL_STOP_3.some((w) => Math.abs(w.length - t.length) <= 1 && withinOneEdit(t, w));
}

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
  c = isStopToken(t) || stopSpelling(t, canon) ? null : canon;
  memo.set(t, c);
  return c;
}

/**
 * The identity-bearing tokens of a name in canonical spelling, and each as it was written (folded).
 * A slip of the keyboard is one edit of the written word, but canonical spelling can make it two
 * or hide it (`Xmahmud` is `ksmahmud`, `Kghodr` is `kghodr` against `hodr`): similarity checks
 * one edit on both.
 */
export interface NameWords {
  tokens: string[];
  spellings: string[];
}

/** The identity-bearing tokens of folded words; never empty when a word has letters or digits. */
function identityTokens(all: readonly string[]): NameWords {
  const words = all.length > 2 ? withoutFormPhrases(all) : all;
  const tokens: string[] = [];
  const spellings: string[] = [];
  for (const t of words) {
    const c = identityToken(t);
    if (c === null) continue;
    tokens.push(c);
    spellings.push(t);
  }
  return tokens.length > 0 ? { tokens, spellings } : { tokens: words.map(canonical), spellings: [...words] };
}

/** The identity-bearing tokens of a name with their written spellings; never empty for a name with letters or digits. */
export function nameWords(text: string): NameWords {
  return identityTokens(foldName(text).split(' ').filter(Boolean));
}

/** The identity-bearing tokens of a name, in canonical spelling; never empty for a name with letters or digits. */
export function nameTokens(text: string): string[] {
  return nameWords(text).tokens;
}

/** Glued parts joined at most: a word broken up three times. */
const MAX_JOIN = 4;

/**
 * A second reading of a name, or null when it reads one way only: glued breaks undone where the
 * joined word is one `known` spells (`Vla!!!dimir`, `Pu\u200btin`), and words made only of
 * look-alike letters read by look (`РUТIN` in Cyrillic). The caller screens both readings:
 * `Abu-Bakr` may be listed as `ABU BAKR` or as `ABUBAKR`, and `Рахор` may be a Russian name.
 */
export function rejoinedTokens(text: string, known: (token: string) => boolean): NameWords | null {
  const marked = foldMarked(text, true);
  let changed = !PRINTABLE_ASCII.test(text) && marked !== foldMarked(text);
  if (!marked.includes(GLUE)) return changed ? identityTokens(marked.split(' ')) : null;
  const words: string[] = [];
  for (const word of marked.split(' ')) {
    const parts = word.split(GLUE);
    for (let i = 0; i < parts.length; ) {
      // The longest run of parts from i (up to MAX_JOIN) that spells a known word: `V!la!dimir` too.
      let end = i + 1;
      for (let j = Math.min(parts.length, i + MAX_JOIN); j > i + 1; j--) {
        const w = parts.slice(i, j).join('');
        const t = identityToken(w);
        // A legal form or particle split apart (`L!TD`, `O!F`) is known too: it joins to nothing.
        if (t === null ? w.length > 1 : known(t)) {
          end = j;
          changed = true;
          break;
        }
      }
      words.push(parts.slice(i, end).join(''));
      i = end;
    }
  }
  return changed ? identityTokens(words) : null;
}

/** Consonant skeleton (`mohammed` -> `mhmd`): matches Arabic and Hebrew transliterations written without vowels. */
export function skeleton(token: string): string {
  const head = token[0] ?? '';
  const rest = token.slice(1).replace(/[aeiouyhw]/g, '');
  return (head + rest).replace(/(.)\1+/g, '$1');
}
