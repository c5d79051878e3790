import type { Expr } from './ast.js';
import { ExpressionError } from './errors.js';
import { likeProblem } from './like.js';
import { parse } from './parser.js';
import type { Ref, Schema, TExpr } from './typed-ast.js';
import { isDate, parseDateTime, type Value, type ValueType } from './values.js';

function fail(e: Expr, reason: string): never {
  throw new ExpressionError(reason, e.span.start);
}

function resolve(e: Extract<Expr, { kind: 'ident' }>, schema: Schema): { type: ValueType; ref: Ref } {
  if (e.qualifier === null) {
    const type = schema.fields.get(e.name);
    if (type) return { type, ref: { source: 'transaction', name: e.name } };
    const hint = schema.counters.has(e.name) ? ` (a counter is read as ${schema.counterTable}.${e.name})` : '';
    fail(e, `unknown identifier '${e.name}'${hint}`);
  }
  if (e.qualifier === schema.counterTable) {
    const type = schema.counters.get(e.name);
    if (!type) fail(e, `unknown counter '${e.name}' in ${schema.counterTable}`);
    return { type, ref: { source: 'counter', name: e.name } };
  }
  const table = schema.tables.get(e.qualifier);
  if (!table) fail(e, `unknown table '${e.qualifier}'`);
  const column = table.columns.get(e.name);
  if (column) return { type: column, ref: { source: 'table', table: e.qualifier, column: e.name } };
  const aggregate = table.aggregates.get(e.name);
  if (aggregate) return { type: aggregate, ref: { source: 'aggregate', table: e.qualifier, name: e.name } };
  fail(e, `unknown column '${e.name}' in table '${e.qualifier}'`);
}

/** A string literal standing where a date or datetime is expected is read as one, or refused. */
function literalAs(e: Expr, want: ValueType): TExpr | null {
  if (e.kind === 'string' && want === 'date') {
    if (!isDate(e.value)) fail(e, `'${e.value}' is not a date (YYYY-MM-DD)`);
    return { kind: 'literal', type: 'date', value: e.value };
  }
  if (e.kind === 'string' && want === 'datetime') {
    const t = parseDateTime(e.value);
    if (t === null) fail(e, `'${e.value}' is not a datetime (RFC 3339)`);
    return { kind: 'literal', type: 'datetime', value: t };
  }
  return null;
}

const isTemporal = (t: ValueType) => t === 'date' || t === 'datetime';

class Checker {
  constructor(private readonly schema: Schema) {}

  check(e: Expr): TExpr {
    switch (e.kind) {
      case 'number':
        return { kind: 'literal', type: 'number', value: e.value };
      case 'string':
        return { kind: 'literal', type: 'string', value: e.value };
      case 'boolean':
        return { kind: 'literal', type: 'boolean', value: e.value };
      case 'ident':
        return { kind: 'ref', ...resolve(e, this.schema) };
      case 'neg':
        return { kind: 'neg', type: 'number', operand: this.expect(e.operand, 'number', "unary '-'") };
      case 'arith':
        return { kind: 'arith', type: 'number', op: e.op, left: this.expect(e.left, 'number', `'${e.op}'`), right: this.expect(e.right, 'number', `'${e.op}'`) };
      case 'not':
        return { kind: 'not', type: 'boolean', operand: this.expect(e.operand, 'boolean', 'NOT') };
      case 'logic':
        return { kind: 'logic', type: 'boolean', op: e.op, left: this.expect(e.left, 'boolean', e.op), right: this.expect(e.right, 'boolean', e.op) };
      case 'compare': {
        // Every type is ordered (false < true, dates by calendar), identically in ClickHouse.
        const [left, right] = this.comparable(e.left, e.right, `'${e.op}'`);
        return { kind: 'compare', type: 'boolean', op: e.op, left, right };
      }
      case 'between': {
        const operand = this.check(e.operand);
        const low = this.against(e.low, operand.type, 'BETWEEN');
        const high = this.against(e.high, operand.type, 'BETWEEN');
        return { kind: 'between', type: 'boolean', operand, low, high, negated: e.negated };
      }
      case 'in': {
        const operand = this.check(e.operand);
        const values = e.list.map((item) => this.inValue(item, operand.type));
        return { kind: 'in', type: 'boolean', operand, values, negated: e.negated };
      }
      case 'like': {
        const operand = this.expect(e.operand, 'string', 'LIKE');
        if (e.pattern.kind !== 'string') fail(e.pattern, 'the pattern of LIKE must be a string literal');
        const problem = likeProblem(e.pattern.value);
        if (problem) fail(e.pattern, problem);
        return { kind: 'like', type: 'boolean', operand, pattern: e.pattern.value, negated: e.negated };
      }
      case 'isNull':
        return { kind: 'isNull', type: 'boolean', operand: this.check(e.operand), negated: e.negated };
    }
  }

  private expect(e: Expr, type: ValueType, what: string): TExpr {
    const t = this.check(e);
    if (t.type !== type) fail(e, `${what} needs a ${type} operand, got ${t.type}`);
    return t;
  }

  /** Checks `e` against a known type, reading a string literal as a date or datetime where needed. */
  private against(e: Expr, type: ValueType, what: string): TExpr {
    const coerced = isTemporal(type) ? literalAs(e, type) : null;
    return coerced ?? this.expect(e, type, what);
  }

  private comparable(l: Expr, r: Expr, what: string): [TExpr, TExpr] {
    // The non-literal side decides the type, so `'2024-01-01' < transaction_date` works both ways.
    if (l.kind === 'string' && r.kind !== 'string') {
      const right = this.check(r);
      return [this.against(l, right.type, what), right];
    }
    const left = this.check(l);
    const right = (isTemporal(left.type) ? literalAs(r, left.type) : null) ?? this.check(r);
    if (left.type !== right.type) fail(r, `${what} compares ${left.type} with ${right.type}`);
    return [left, right];
  }

  private inValue(e: Expr, type: ValueType): Exclude<Value, null> {
    const literal = e.kind === 'neg' && e.operand.kind === 'number' ? { kind: 'literal' as const, type: 'number' as const, value: -e.operand.value } : null;
    const t = literal ?? (isTemporal(type) ? literalAs(e, type) : null) ?? this.check(e);
    if (t.kind !== 'literal') fail(e, 'IN lists hold literals only');
    if (t.type !== type) fail(e, `IN list value of type ${t.type} where ${type} is expected`);
    return t.value;
  }
}

/** Parses and types one expression; it must be boolean. Throws ExpressionError with a position. */
export function checkExpression(src: string, schema: Schema): TExpr {
  const ast = parse(src);
  const typed = new Checker(schema).check(ast);
  if (typed.type !== 'boolean') throw new ExpressionError(`the expression must be true or false, but it is a ${typed.type}`, ast.span.start);
  return typed;
}
