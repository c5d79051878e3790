import { describe, expect, it } from 'vitest';
import { show } from './ast.js';
import { ExpressionError } from './errors.js';
import { tokenize } from './lexer.js';
import { parse } from './parser.js';

const shown = (src: string) => show(parse(src));

function errorOf(src: string): ExpressionError {
  try {
    parse(src);
  } catch (err) {
    if (err instanceof ExpressionError) return err;
    throw err;
  }
  throw new Error(`'${src}' parsed`);
}

describe('lexer', () => {
  it('gives every token its offset, line and column', () => {
    const tokens = tokenize("amount >= 10\n  AND currency = 'N''GN'");
    expect(tokens.map((t) => [t.kind, t.text, t.start.offset, t.start.line, t.start.column])).toEqual([
      ['ident', 'amount', 0, 1, 1],
      ['punct', '>=', 7, 1, 8],
      ['number', '10', 10, 1, 11],
      ['keyword', 'AND', 15, 2, 3],
      ['ident', 'currency', 19, 2, 7],
      ['punct', '=', 28, 2, 16],
      ['string', "'N''GN'", 30, 2, 18],
      ['eof', '', 37, 2, 25],
    ]);
    expect(tokens[6]!.value).toBe("N'GN");
  });

  it('reads keywords in any case, numbers with exponents, and the alternative operators', () => {
    expect(tokenize('a <> 1e3 or b == 2.5').map((t) => t.value)).toEqual(['a', '!=', 1000, 'OR', 'b', '=', 2.5, null]);
  });

  it('reports unterminated strings and stray characters where they start', () => {
    expect(() => tokenize("x = 'abc")).toThrow("line 1, column 5: unterminated string literal");
    expect(() => tokenize('x = 1 ; y')).toThrow("line 1, column 7: unexpected character ';'");
    expect(() => tokenize('x = 12abc')).toThrow("line 1, column 5: invalid number");
  });
});

describe('parser precedence', () => {
  it.each([
    ['a OR b AND c', '(a OR (b AND c))'],
    ['a AND b OR c AND d', '((a AND b) OR (c AND d))'],
    ['NOT a AND b', '((NOT a) AND b)'],
    ['NOT a = 1', '(NOT (a = 1))'],
    ['NOT NOT a', '(NOT (NOT a))'],
    ['a + b * c > d - e / f', '((a + (b * c)) > (d - (e / f)))'],
    ['a - b - c = 0', '(((a - b) - c) = 0)'],
    ['a / b / c = 0', '(((a / b) / c) = 0)'],
    ['-a * b < 0', '(((-a) * b) < 0)'],
    ['(a OR b) AND c', '((a OR b) AND c)'],
    ['x BETWEEN 1 + 1 AND 5 AND y', '((x BETWEEN (1 + 1) AND 5) AND y)'],
    ["x NOT IN ('a', 'b') OR y IN (1)", "((x NOT IN ('a', 'b')) OR (y IN (1)))"],
    ['x IS NOT NULL AND y IS NULL', '((x IS NOT NULL) AND (y IS NULL))'],
    ["name NOT LIKE 'a%' AND entity_counters.n > 3", "((name NOT LIKE 'a%') AND (entity_counters.n > 3))"],
    ['x NOT BETWEEN 1 AND 2', '(x NOT BETWEEN 1 AND 2)'],
    ['TRUE = pep', '(TRUE = pep)'],
  ])('%s', (src, expected) => {
    expect(shown(src)).toBe(expected);
  });
});

describe('parser errors carry positions', () => {
  it.each([
    ['amount >', 1, 9, 'unexpected end of expression'],
    ['amount > > 3', 1, 10, "expected a value but found '>'"],
    ['(amount > 3', 1, 12, "expected ')' but found end of expression"],
    ['amount > 3)', 1, 11, "unexpected ')'"],
    ['a = 1 = 2', 1, 7, 'comparisons cannot be chained'],
    ['x BETWEEN 1 OR 2', 1, 13, "expected 'AND' in BETWEEN but found 'OR'"],
    ['x IN 1, 2', 1, 6, "expected '(' after IN"],
    ['x IN (1, 2', 1, 11, "expected ',' or ')' in the IN list"],
    ['x IS 3', 1, 6, "expected 'NULL' or 'NOT NULL' after 'IS'"],
    ['entity_counters. > 1', 1, 18, 'expected a column or counter name'],
    ['amount > 1\nAND AND', 2, 5, "expected a value but found 'AND'"],
  ])('%s', (src, line, column, reason) => {
    const err = errorOf(src);
    expect(err.at).toMatchObject({ line, column });
    expect(err.reason).toContain(reason);
  });
});

describe('nesting depth', () => {
  it.each([
    ['10,000 prefix minus signs', `${'-'.repeat(10_000)}1 > 0`, 129],
    ['deep parentheses', `${'('.repeat(500)}1${')'.repeat(500)} > 0`, 129],
    ['deep NOT', `${'NOT '.repeat(300)}TRUE`, 513],
  ])('%s are refused at the first level too deep', (_what, src, column) => {
    const err = errorOf(src);
    expect(err.reason).toBe('the expression is nested too deeply (more than 128 levels)');
    expect(err.at).toMatchObject({ line: 1, column });
  });

  it('refuses a long left-leaning chain, which deepens the tree without recursion', () => {
    const err = errorOf(`${Array.from({ length: 2_000 }, () => 'a').join(' + ')} > 0`);
    expect(err.reason).toContain('nested too deeply');
  });

  it('accepts nesting up to the limit', () => {
    expect(() => parse(`${'-'.repeat(120)}1 > 0`)).not.toThrow();
    expect(() => parse(`${Array.from({ length: 100 }, () => 'a').join(' + ')} > 0`)).not.toThrow();
  });
});
