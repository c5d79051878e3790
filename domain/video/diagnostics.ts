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

/** Collects findings in source order; errors do not stop the compiler, so one pass reports them all. */
export class Diagnostics {
  readonly list: Diagnostic[] = [];

  error(at: Position, code: string, message: string): void {
    this.list.push({ level: 'error', code, message, line: at.line, column: at.column });
  }

  warn(at: Position, code: string, message: string): void {
    this.list.push({ level: 'warning', code, message, line: at.line, column: at.column });
  }

  get hasErrors(): boolean {
    return this.list.some((d) => d.level === 'error');
  }

  /** Source order, errors before warnings at the same place. */
  sorted(): Diagnostic[] {
    return [...this.list].sort((a, b) => a.line - b.line || a.column - b.column || (a.level === b.level ? 0 : a.level === 'error' ? -1 : 1));
  }
}

/** The closest of `candidates` to `word` within a small edit distance, for "did you mean" hints. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.ceil(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

export const hint = (word: string, candidates: Iterable<string>): string => {
  const c = closest(word, candidates);
  return c ? `; did you mean ${c}?` : '';
};
