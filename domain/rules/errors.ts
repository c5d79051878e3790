/** Where in an expression something is: 0-based offset, 1-based line and column. */
export interface Position {
  offset: number;
  line: number;
  column: number;
}

export interface Span {
  start: Position;
  end: Position;
}

/**
 * Any failure to lex, parse or type an expression. Carries the position so the HTTP layer can say
 * "evaluation X, line 1, column 12: ..." (CONTRACTS.md section 3).
 */
export class ExpressionError extends Error {
  constructor(
    readonly reason: string,
    readonly at: Position,
  ) {
    super(`line ${at.line}, column ${at.column}: ${reason}`);
  }
}
