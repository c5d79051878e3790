import type { Span } from './errors.js';

/** The syntax tree the parser produces; types are attached later by the checker (typed-ast.ts). */
export type ArithOp = '+' | '-' | '*' | '/';
export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type LogicOp = 'AND' | 'OR';

export type Expr =
  | { kind: 'number'; value: number; span: Span }
  | { kind: 'string'; value: string; span: Span }
  | { kind: 'boolean'; value: boolean; span: Span }
  /** `name` or `qualifier.name` (a counter table or a custom table). */
  | { kind: 'ident'; qualifier: string | null; name: string; span: Span }
  | { kind: 'neg'; operand: Expr; span: Span }
  | { kind: 'not'; operand: Expr; span: Span }
  | { kind: 'arith'; op: ArithOp; left: Expr; right: Expr; span: Span }
  | { kind: 'compare'; op: CompareOp; left: Expr; right: Expr; span: Span }
  | { kind: 'logic'; op: LogicOp; left: Expr; right: Expr; span: Span }
  | { kind: 'in'; operand: Expr; list: Expr[]; negated: boolean; span: Span }
  | { kind: 'between'; operand: Expr; low: Expr; high: Expr; negated: boolean; span: Span }
  | { kind: 'like'; operand: Expr; pattern: Expr; negated: boolean; span: Span }
  | { kind: 'isNull'; operand: Expr; negated: boolean; span: Span };

/** Renders a tree fully parenthesised: the parser tests state precedence with it. */
export function show(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return String(e.value);
    case 'string':
      return `'${e.value.replaceAll("'", "''")}'`;
    case 'boolean':
      return e.value ? 'TRUE' : 'FALSE';
    case 'ident':
      return e.qualifier ? `${e.qualifier}.${e.name}` : e.name;
    case 'neg':
      return `(-${show(e.operand)})`;
    case 'not':
      return `(NOT ${show(e.operand)})`;
    case 'arith':
    case 'compare':
    case 'logic':
      return `(${show(e.left)} ${e.op} ${show(e.right)})`;
    case 'in':
      return `(${show(e.operand)}${e.negated ? ' NOT' : ''} IN (${e.list.map(show).join(', ')}))`;
    case 'between':
      return `(${show(e.operand)}${e.negated ? ' NOT' : ''} BETWEEN ${show(e.low)} AND ${show(e.high)})`;
    case 'like':
      return `(${show(e.operand)}${e.negated ? ' NOT' : ''} LIKE ${show(e.pattern)})`;
    case 'isNull':
      return `(${show(e.operand)} IS${e.negated ? ' NOT' : ''} NULL)`;
  }
}
