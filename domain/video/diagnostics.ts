/** A finding of the compiler at a 1-based line and column (columns count UTF-16 code units, as LSP does). */
export interface Diagnostic {
  level: 'error' | 'warning';
  /** Stable kebab-case name of the finding, e.g. `unknown-directive`. */
  code: string;
  message: string;
  line: number;
  column: number;
}

export interface Position {
  line: number;
  column: number;
}

/** Findings listed at most: past this many the script is not worth reading further, and the answer stays small. */
export const MAX_DIAGNOSTICS = 1_000;

/** A message, or a function building it: costly messages (with a "did you mean") are built only when listed. */
type Message = string | (() => string);

/**
 * Collects findings in source order; errors do not stop the compiler, so one pass reports them all,
 * up to MAX_DIAGNOSTICS listed (every error still counts: a script with an unlisted error fails).
 */
export class Diagnostics {
  readonly list: Diagnostic[] = [];
  /** Findings reported, those past the cap too. */
  reported = 0;
  /** The line of every error, those past the cap too. */
  readonly errorLines: number[] = [];

  error(at: Position, code: string, message: Message): void {
    this.errorLines.push(at.line);
    this.add('error', at, code, message);
  }

  warn(at: Position, code: string, message: Message): void {
    this.add('warning', at, code, message);
  }

  private add(level: Diagnostic['level'], at: Position, code: string, message: Message): void {
    this.reported++;
    if (this.list.length >= MAX_DIAGNOSTICS) return;
    this.list.push({ level, code, message: typeof message === 'string' ? message : message(), line: at.line, column: at.column });
  }

  get hasErrors(): boolean {
    return this.errorLines.length > 0;
  }

  /** Source order, errors before warnings at the same place; a last warning says how many more were not listed. */
  sorted(): Diagnostic[] {
    const sorted = [...this.list].sort((a, b) => a.line - b.line || a.column - b.column || (a.level === b.level ? 0 : a.level === 'error' ? -1 : 1));
    const unlisted = this.reported - this.list.length;
    const last = sorted.at(-1);
    if (unlisted > 0 && last) {
      sorted.push({ level: 'warning', code: 'too-many-diagnostics', message: `${unlisted} more findings are not listed; fix these first`, line: last.line, column: last.column });
    }
    return sorted;
  }
}

/** Source text as a message quotes it: a long token is cut, so its message does not repeat the script. */
export const excerpt = (text: string): string => (text.length > 40 ? `${text.slice(0, 40)}… (${text.length} characters)` : text);

/** Words longer than this get no hint: no name is that long, and the edit distance costs their length times the name's. */
const MAX_HINTED_LENGTH = 64;

/** The closest of `candidates` to `word` within a small edit distance, for "did you mean" hints. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length > MAX_HINTED_LENGTH) return undefined;
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.ceil(word.length / 3)) + 1;
  const lower = word.toLowerCase();
  for (const c of candidates) {
    // The distance is at least the difference in length: most candidates need no table.
    if (Math.abs(c.length - lower.length) >= bestDistance) continue;
    const d = editDistance(lower, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** Levenshtein distance of `a` and `b` over two reused rows (both are short: see MAX_HINTED_LENGTH). */
function editDistance(a: string, b: string): number {
  let prev = new Uint32Array(b.length + 1).map((_, j) => j);
  let cur = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1));
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

export const hint = (word: string, candidates: Iterable<string>): string => {
  const c = closest(word, candidates);
  return c ? `; did you mean ${c}?` : '';
};
