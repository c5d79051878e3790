/**
 * LIKE patterns: `%` any run of characters, `_` one character, `\` makes the next `%`, `_` or `\`
 * literal. This is ClickHouse's LIKE (case-sensitive, whole string, `_` one Unicode code point);
 * other escapes are refused so the two back ends cannot read a pattern differently.
 *
 * Matching never backtracks: the pattern is split at `%` into segments; the first is matched at the
 * start, the last at the end, and each one between at its leftmost place after the previous one
 * (leftmost is always safe, as `%` absorbs whatever lies between). That search is bit-parallel
 * Shift-And over the segment, so a match costs O(n · ⌈m / 32⌉) for an input of n characters and a
 * segment of m, whatever the input holds.
 */

/** Longest pattern accepted, in characters: bounds the Shift-And words per input character. */
export const MAX_LIKE_PATTERN = 256;

export function likeProblem(pattern: string): string | null {
  if (pattern.length > MAX_LIKE_PATTERN) return `a LIKE pattern may have at most ${MAX_LIKE_PATTERN} characters (this one has ${pattern.length})`;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '\\') continue;
    const next = pattern[i + 1];
    if (next !== '%' && next !== '_' && next !== '\\') return `in a LIKE pattern '\\' may only precede %, _ or \\ (position ${i + 1})`;
    i++;
  }
  return null;
}

/** `_`: any one code point; other entries are the code point to match. */
const ANY = -1;
type Segment = number[];

/** Splits a (checked) pattern at its unescaped `%`: n+1 segments for n of them. */
function segments(pattern: string): Segment[] {
  const out: Segment[] = [[]];
  for (let i = 0; i < pattern.length; ) {
    const cp = pattern.codePointAt(i)!;
    i += cp > 0xffff ? 2 : 1;
    if (cp === 0x5c /* \ */) {
      const escaped = pattern.codePointAt(i)!;
      i += escaped > 0xffff ? 2 : 1;
      out.at(-1)!.push(escaped);
    } else if (cp === 0x25 /* % */) out.push([]);
    else out.at(-1)!.push(cp === 0x5f /* _ */ ? ANY : cp);
  }
  return out;
}

const width = (cp: number): number => (cp > 0xffff ? 2 : 1);

/** The code point ending just before `end` (a surrogate pair read whole). */
function codePointBefore(s: string, end: number): number {
  const low = s.charCodeAt(end - 1);
  if (low >= 0xdc00 && low <= 0xdfff && end >= 2) {
    const high = s.charCodeAt(end - 2);
    if (high >= 0xd800 && high <= 0xdbff) return s.codePointAt(end - 2)!;
  }
  return low;
}

/** Matches `seg` at `from`; the end offset, or -1 when it does not fit before `limit`. */
function matchForward(s: string, seg: Segment, from: number, limit: number): number {
  let i = from;
  for (const want of seg) {
    if (i >= limit) return -1;
    const cp = s.codePointAt(i)!;
    if (want !== ANY && want !== cp) return -1;
    i += width(cp);
  }
  return i;
}

/** Matches `seg` ending at `end`; the start offset, or -1 when it does not fit after `floor`. */
function matchBackward(s: string, seg: Segment, end: number, floor: number): number {
  let i = end;
  for (let k = seg.length - 1; k >= 0; k--) {
    if (i <= floor) return -1;
    const cp = codePointBefore(s, i);
    const want = seg[k]!;
    if (want !== ANY && want !== cp) return -1;
    i -= width(cp);
  }
  return i;
}

/** Shift-And tables of one segment: per code point, the bit set of the positions it may take. */
interface Searcher {
  words: number;
  /** Masks of code points below 128 by index (the common case, no hashing), the others by map. */
  ascii: Uint32Array[];
  masks: Map<number, Uint32Array>;
  anyMask: Uint32Array;
  lastWord: number;
  lastBit: number;
}

function searcher(seg: Segment): Searcher {
  const words = Math.ceil(seg.length / 32);
  const anyMask = new Uint32Array(words);
  seg.forEach((cp, k) => {
    if (cp === ANY) anyMask[k >> 5]! |= 1 << (k & 31);
  });
  const masks = new Map<number, Uint32Array>();
  seg.forEach((cp, k) => {
    if (cp === ANY) return;
    let m = masks.get(cp);
    if (!m) masks.set(cp, (m = anyMask.slice()));
    m[k >> 5]! |= 1 << (k & 31);
  });
  const ascii = Array.from({ length: 128 }, (_, cp) => masks.get(cp) ?? anyMask);
  const last = seg.length - 1;
  return { words, ascii, masks, anyMask, lastWord: last >> 5, lastBit: 1 << (last & 31) };
}

/** The end offset of the leftmost occurrence of the segment in s[from, limit), or -1. */
function search(s: string, t: Searcher, from: number, limit: number): number {
  const state = new Uint32Array(t.words);
  for (let i = from; i < limit; ) {
    const cp = s.codePointAt(i)!;
    i += width(cp);
    const mask = cp < 128 ? t.ascii[cp]! : (t.masks.get(cp) ?? t.anyMask);
    let carry = 1;
    for (let w = 0; w < t.words; w++) {
      const out = state[w]! >>> 31;
      state[w] = ((state[w]! << 1) | carry) & mask[w]!;
      carry = out;
    }
    if (state[t.lastWord]! & t.lastBit) return i;
  }
  return -1;
}

/** Compiles a checked pattern to a matcher whose cost is linear in the input (see above). */
export function compileLike(pattern: string): (s: string) => boolean {
  const segs = segments(pattern);
  const head = segs[0]!;
  if (segs.length === 1) return (s) => matchForward(s, head, 0, s.length) === s.length;
  const tail = segs.at(-1)!;
  const middle = segs.slice(1, -1).filter((seg) => seg.length > 0).map(searcher);
  return (s) => {
    const start = matchForward(s, head, 0, s.length);
    if (start < 0) return false;
    const end = matchBackward(s, tail, s.length, start);
    if (end < 0) return false;
    let at = start;
    for (const t of middle) {
      at = search(s, t, at, end);
      if (at < 0) return false;
    }
    return true;
  };
}
