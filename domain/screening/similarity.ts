import { doubleMetaphone } from 'double-metaphone';
import { skeleton, withinOneEdit } from './normalize.js';

/**
 * Jaro-Winkler similarity in [0, 1]. Hand-written because it is the innermost loop of every screen:
 * no allocation beyond two small flag arrays reused across calls.
 */
let flagsA = new Uint8Array(64);
let flagsB = new Uint8Array(64);

export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  if (flagsA.length < la) flagsA = new Uint8Array(la * 2);
  if (flagsB.length < lb) flagsB = new Uint8Array(lb * 2);
  flagsA.fill(0, 0, la);
  flagsB.fill(0, 0, lb);
  const range = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - range);
    const hi = Math.min(lb - 1, i + range);
    const c = a.charCodeAt(i);
    for (let j = lo; j <= hi; j++) {
      if (flagsB[j] === 0 && b.charCodeAt(j) === c) {
        flagsA[i] = 1;
        flagsB[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (flagsA[i] === 0) continue;
    while (flagsB[k] === 0) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  const m = matches;
  const jaro = (m / la + m / lb + (m - transpositions / 2) / m) / 3;
  let prefix = 0;
  const maxPrefix = Math.min(4, la, lb);
  while (prefix < maxPrefix && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/** Double Metaphone codes of a token (primary, and secondary when it differs). */
export function phoneticKeys(token: string): string[] {
  const [p, s] = doubleMetaphone(token);
  return p === s || !s ? (p ? [p] : []) : p ? [p, s] : [s];
}

const VOWEL = /[aeiou]/;

/** What one edit costs a token, spread over its letters. */
const EDIT_COST = 0.6;

/**
 * Words up to this long are names whose every letter counts: Jaro-Winkler's credit for shared
 * letters there does not tell a spelling of the name from another name. Longer words keep it,
 * since they vary by derivation too (`revolution`, `revolutionary`).
 */
const SHORT_WORD = 6;

/** Below this, two tokens are different names: a looser floor lets unrelated short names pair up. */
export const TOKEN_FLOOR = 0.85;

/**
 * Similarity of two name tokens: Jaro-Winkler, lifted when the tokens sound alike or when a
 * vowel-less query token (an Arabic or Hebrew transliteration) has the candidate's consonants,
 * and an initial against the name it abbreviates; short words that differ in their consonants
 * are worth no more than the slips between them. Scores under TOKEN_FLOOR count as no match.
 */
export function tokenSimilarity(q: string, c: string, qKeys: readonly string[], cKeys: readonly string[], qWritten = q, cWritten = c): number {
  if (q === c) return 1;
  // An initial agrees with a name but says little: it counts, below what any spelled name earns.
  if (q.length === 1 || c.length === 1) return q[0] === c[0] ? 0.6 : 0;
  let s = jaroWinkler(q, c);
  // Short tokens share letters by chance: `ali` and `alo` are different names.
  if (Math.min(q.length, c.length) <= 3 && s < 0.95) s -= 0.1;
  // A typo or a transliteration changes a length by a letter or two; `sandra` is not `shavendra`.
  if (Math.abs(q.length - c.length) >= 3) s -= 0.1;
  // Nor does either usually change the first consonant: `fatima` is not `atia` (vowels vary: Osama, Usama).
  if (q[0] !== c[0] && !(VOWEL.test(q[0]!) && VOWEL.test(c[0]!))) s -= 0.08;
  // Sounding alike lifts spelling variants (`husayn`, `hussein`); short tokens sound alike too easily.
  if (s < 0.86 && s >= 0.8 && q[0] === c[0] && q.length >= 4 && c.length >= 4 && qKeys.some((k) => k.length >= 2 && cKeys.includes(k))) s = 0.86;
  if (s < 0.88 && q.length >= 3 && !VOWEL.test(q) && skeleton(q) === skeleton(c)) s = 0.88;
  // One slip of the keyboard (a letter changed, dropped, added, or two swapped, the first too) is
  // worth what it leaves of the word: 0.85 in a 4-letter name, 0.95 in a 12-letter one. The slip
  // is made in the word as written, which canonical spelling may have turned into two edits.
  const slip = Math.max(oneSlip(q, c), oneSlip(qWritten, cWritten));
  // Canonical spelling can make one slip two edits (`xmahmud` is `ksmahmud`): long words bear two.
  const twice = Math.min(q.length, c.length) >= 7 ? 1 - (2 * EDIT_COST) / Math.max(q.length, c.length) : 0;
  // Jaro-Winkler and the lifts above measure spellings of one name, which transliterations vary
  // in their vowels (`usama`, `osama`; `ladin`, `laden`) or in letters that sound alike. In a
  // short word, where every letter counts, two words whose consonants differ and that sound
  // different are slips of each other, worth what the slips are worth, or two names: `miller` is
  // not `mayer`, nor `linda` `lidia`, nor `kaya` `kani`, though Jaro-Winkler rates their shared
  // letters highly.
  const short = Math.max(q.length, c.length) <= SHORT_WORD;
  if (short && s >= TOKEN_FLOOR && s > slip && !spellingsOfOneName(q, c, qKeys, cKeys)) {
    s = slip > 0 || twice === 0 || !withinTwoEdits(q, c) ? slip : twice;
  } else {
    s = Math.max(s, slip);
    if (s < twice && withinTwoEdits(q, c)) s = twice;
  }
  return s >= TOKEN_FLOOR ? s : 0;
}

/**
 * Consonants of a canonical word by the sounds transliterations exchange for one another, each run
 * once: vowels and the glides `w`, `y`, `v` dropped (Belarusian `-au` is Russian `-ov`); dentals
 * and sibilants one class (Arabic `kazim`/`kadhim`, `haris`/`harith`); velars and `h` one
 * (`gaddafi`/`kadafi`, Ukrainian `serhii` for Russian `sergei`); labials one. `usama` and `osama`
 * are both `Tm`; `miller` (`mlr`) is not `mayer` (`mr`).
 */
function consonantClasses(t: string): string {
  let out = '';
  for (let i = 0; i < t.length; i++) {
    const ch = t[i]!;
    // `h` in `th`, `dh`, `sh`, `zh`, `ch`, `gh` only marks how the letter before it sounds: `harith` is `haris`.
    if (ch === 'h' && i > 0 && DIGRAPH_HEADS.includes(t[i - 1]!)) continue;
    const k = CONSONANT_CLASS[ch] ?? ch;
    if (k !== '' && out[out.length - 1] !== k) out += k;
  }
  return out;
}
const DIGRAPH_HEADS = 'tdszcg';
const CONSONANT_CLASS: Record<string, string> = Object.fromEntries([
  ...[...'aeiouywv'].map((c) => [c, '']),
  ...[...'dtszcjx'].map((c) => [c, 'T']),
  ...[...'kgqh'].map((c) => [c, 'K']),
  ...[...'bpf'].map((c) => [c, 'P']),
]);

/**
 * Two words that differ only as spellings or forms of one name do: the same Double Metaphone sound,
 * the same consonant classes, or one the other with letters added at either end (`marko`, `hizbul`,
 * `alamin` with its article glued on).
 */
function spellingsOfOneName(q: string, c: string, qKeys: readonly string[], cKeys: readonly string[]): boolean {
  return qKeys.some((k) => k.length >= 2 && cKeys.includes(k)) || q.startsWith(c) || c.startsWith(q) || q.endsWith(c) || c.endsWith(q) || consonantClasses(q) === consonantClasses(c);
}

/** What a and b are worth as one slip of each other (see tokenSimilarity), or 0 when they are not. */
export function slipValue(a: string, b: string): number {
  return Math.min(a.length, b.length) >= 3 && Math.max(a.length, b.length) >= 4 ? 1 - EDIT_COST / Math.max(a.length, b.length) : 0;
}

function oneSlip(a: string, b: string): number {
  const value = slipValue(a, b);
  return value > 0 && withinOneEdit(a, b) ? value : 0;
}

/** Optimal string alignment distance of a and b is at most 2 (a swap of neighbours counts one). */
function withinTwoEdits(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 2) return false;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > 2) return false;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]! <= 2;
}
