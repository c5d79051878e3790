import type { CompareOp, Expr } from './ast.js';
import { ExpressionError, type Position, type Span } from './errors.js';
import { tokenize, type Token } from './lexer.js';

/**
 * Pratt parser. Binding powers, loosest first: OR 1, AND 2, prefix NOT 3, comparisons and the
 * predicates IN / BETWEEN / LIKE / IS 4 (not chainable), + - 5, * / 6, prefix minus 7.
 */
const BP = { OR: 1, AND: 2, NOT: 3, PREDICATE: 4, ADD: 5, MUL: 6 } as const;
const COMPARE: ReadonlySet<string> = new Set(['=', '!=', '<', '<=', '>', '>=']);

/**
 * Deepest nesting accepted, counted both as the parser's own recursion (parentheses, prefix
 * operators, right operands) and as the depth of the tree, which left-leaning chains such as
 * `a + a + a` also deepen. Every later pass (checker, evaluator, SQL and ClickHouse's own parser,
 * whose limit is 1000) walks the tree recursively, so this bounds them all.
 */
export const MAX_DEPTH = 128;
const tooDeep = `the expression is nested too deeply (more than ${MAX_DEPTH} levels)`;

const describe = (t: Token): string => (t.kind === 'eof' ? 'end of expression' : `'${t.text}'`);
const span = (start: Position, end: Position): Span => ({ start, end });

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private get peek(): Token {
    return this.tokens[this.i]!;
  }
  private next(): Token {
    return this.tokens[this.i++]!;
  }
  private isKeyword(t: Token, kw: string): boolean {
    return t.kind === 'keyword' && t.value === kw;
  }
  private isPunct(t: Token, p: string): boolean {
    return t.kind === 'punct' && t.value === p;
  }
  private expectPunct(p: string, what: string): Token {
    const t = this.next();
    if (!this.isPunct(t, p)) throw new ExpressionError(`expected ${what} but found ${describe(t)}`, t.start);
    return t;
  }
  private expectKeyword(kw: string, what: string): Token {
    const t = this.next();
    if (!this.isKeyword(t, kw)) throw new ExpressionError(`expected ${what} but found ${describe(t)}`, t.start);
    return t;
  }

  parseAll(): Expr {
    const e = this.expr(0);
    const t = this.peek;
    if (t.kind !== 'eof') throw new ExpressionError(`unexpected ${describe(t)}`, t.start);
    return e;
  }

  /** Binding power of the token after a complete operand, or 0 when it ends the expression. */
  private infixPower(): number {
    const t = this.peek;
    if (t.kind === 'keyword') {
      if (t.value === 'OR') return BP.OR;
      if (t.value === 'AND') return BP.AND;
      if (t.value === 'IN' || t.value === 'BETWEEN' || t.value === 'LIKE' || t.value === 'IS') return BP.PREDICATE;
      if (t.value === 'NOT') {
        const after = this.tokens[this.i + 1]!;
        if (after.kind === 'keyword' && (after.value === 'IN' || after.value === 'BETWEEN' || after.value === 'LIKE')) return BP.PREDICATE;
      }
      return 0;
    }
    if (t.kind === 'punct') {
      if (COMPARE.has(t.value)) return BP.PREDICATE;
      if (t.value === '+' || t.value === '-') return BP.ADD;
      if (t.value === '*' || t.value === '/') return BP.MUL;
    }
    return 0;
  }

  private expr(minBp: number): Expr {
    if (++this.depth > MAX_DEPTH) throw new ExpressionError(tooDeep, this.peek.start);
    let left = this.prefix();
    for (;;) {
      const bp = this.infixPower();
      if (bp <= minBp) {
        this.depth--;
        return left;
      }
      left = this.infix(left, bp);
      if (bp === BP.PREDICATE && this.infixPower() === BP.PREDICATE) {
        throw new ExpressionError(`comparisons cannot be chained: combine them with AND or OR`, this.peek.start);
      }
    }
  }

  private prefix(): Expr {
    const t = this.next();
    switch (t.kind) {
      case 'number':
        return { kind: 'number', value: t.value, span: span(t.start, t.end) };
      case 'string':
        return { kind: 'string', value: t.value, span: span(t.start, t.end) };
      case 'ident': {
        if (this.isPunct(this.peek, '.')) {
          this.next();
          const name = this.next();
          if (name.kind !== 'ident') throw new ExpressionError(`expected a column or counter name after '${t.value}.' but found ${describe(name)}`, name.start);
          return { kind: 'ident', qualifier: t.value, name: name.value, span: span(t.start, name.end) };
        }
        return { kind: 'ident', qualifier: null, name: t.value, span: span(t.start, t.end) };
      }
      case 'keyword':
        if (t.value === 'TRUE' || t.value === 'FALSE') return { kind: 'boolean', value: t.value === 'TRUE', span: span(t.start, t.end) };
        if (t.value === 'NOT') {
          const operand = this.expr(BP.NOT);
          return { kind: 'not', operand, span: span(t.start, operand.span.end) };
        }
        break;
      case 'punct':
        if (t.value === '(') {
          const inner = this.expr(0);
          this.expectPunct(')', "')'");
          return inner;
        }
        if (t.value === '-') {
          const operand = this.expr(BP.MUL);
          return { kind: 'neg', operand, span: span(t.start, operand.span.end) };
        }
        break;
      case 'eof':
        throw new ExpressionError('unexpected end of expression: a value is missing', t.start);
    }
    throw new ExpressionError(`expected a value but found ${describe(t)}`, t.start);
  }

  private infix(left: Expr, bp: number): Expr {
    const t = this.next();
    const from = left.span.start;
    if (t.kind === 'punct') {
      const right = this.expr(bp);
      const s = span(from, right.span.end);
      if (COMPARE.has(t.value)) return { kind: 'compare', op: t.value as CompareOp, left, right, span: s };
      return { kind: 'arith', op: t.value as '+' | '-' | '*' | '/', left, right, span: s };
    }
    if (t.kind !== 'keyword') throw new ExpressionError(`unexpected ${describe(t)}`, t.start);
    if (t.value === 'AND' || t.value === 'OR') {
      const right = this.expr(bp);
      return { kind: 'logic', op: t.value, left, right, span: span(from, right.span.end) };
    }
    if (t.value === 'IS') {
      const negated = this.isKeyword(this.peek, 'NOT');
      if (negated) this.next();
      const n = this.expectKeyword('NULL', negated ? "'NULL' after 'IS NOT'" : "'NULL' or 'NOT NULL' after 'IS'");
      return { kind: 'isNull', operand: left, negated, span: span(from, n.end) };
    }
    const negated = t.value === 'NOT';
    const op = negated ? this.next() : t;
    if (this.isKeyword(op, 'IN')) {
      this.expectPunct('(', "'(' after IN");
      const list: Expr[] = [this.expr(0)];
      while (this.isPunct(this.peek, ',')) {
        this.next();
        list.push(this.expr(0));
      }
      const close = this.expectPunct(')', "',' or ')' in the IN list");
      return { kind: 'in', operand: left, list, negated, span: span(from, close.end) };
    }
    if (this.isKeyword(op, 'BETWEEN')) {
      const low = this.expr(BP.PREDICATE);
      this.expectKeyword('AND', "'AND' in BETWEEN");
      const high = this.expr(BP.PREDICATE);
      return { kind: 'between', operand: left, low, high, negated, span: span(from, high.span.end) };
    }
    const pattern = this.expr(BP.PREDICATE);
    return { kind: 'like', operand: left, pattern, negated, span: span(from, pattern.span.end) };
  }
}

const childrenOf = (e: Expr): Expr[] => {
  switch (e.kind) {
    case 'neg':
    case 'not':
    case 'isNull':
      return [e.operand];
    case 'arith':
    case 'compare':
    case 'logic':
      return [e.left, e.right];
    case 'in':
      return [e.operand, ...e.list];
    case 'between':
      return [e.operand, e.low, e.high];
    case 'like':
      return [e.operand, e.pattern];
    default:
      return [];
  }
};

/** Refuses a tree deeper than MAX_DEPTH, at the first node too deep; walks without recursion. */
function checkDepth(root: Expr): void {
  const stack: [Expr, number][] = [[root, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [e, d] = item;
    if (d > MAX_DEPTH) throw new ExpressionError(tooDeep, e.span.start);
    for (const child of childrenOf(e)) stack.push([child, d + 1]);
  }
}

/** Parses an expression; throws ExpressionError with the position of the first problem. */
export function parse(src: string): Expr {
  const e = new Parser(tokenize(src)).parseAll();
  checkDepth(e);
  return e;
}
