import type { CompareOp } from './ast.js';
import { compileLike } from './like.js';
import type { Ref, TExpr } from './typed-ast.js';
import { compareStrings, type Value, type ValueType } from './values.js';

/** Runtime rows in runtime representation (see values.ts); a missing key reads as NULL. */
export type Row = Readonly<Record<string, Value | undefined>>;

/** The data one transaction's evaluation sees. */
export interface EvalContext {
  transaction: Row;
  counters: Row;
  /** Custom table rows (id = entity_id) merged with that table's windowState aggregates. */
  tables: Readonly<Record<string, Row | undefined>>;
}

export type Compiled = (ctx: EvalContext) => Value;

/**
 * NULL semantics, shared with the SQL back end (ClickHouse behaves this way for Nullable values):
 * arithmetic, comparisons, IN, BETWEEN and LIKE with a NULL operand are NULL; AND, OR and NOT use
 * three-valued (Kleene) logic; IS [NOT] NULL is never NULL. An evaluation that ends NULL is not
 * true, so it adds no weight.
 */
export function compile(e: TExpr): Compiled {
  switch (e.kind) {
    case 'literal': {
      const v = e.value;
      return () => v;
    }
    case 'ref':
      return reader(e.ref);
    case 'neg': {
      const f = compile(e.operand);
      return (c) => {
        const v = f(c);
        return v === null ? null : -(v as number);
      };
    }
    case 'arith': {
      const l = compile(e.left);
      const r = compile(e.right);
      const op = ARITH[e.op];
      return (c) => {
        const a = l(c);
        if (a === null) return null;
        const b = r(c);
        return b === null ? null : op(a as number, b as number);
      };
    }
    case 'not': {
      const f = compile(e.operand);
      return (c) => {
        const v = f(c);
        return v === null ? null : !v;
      };
    }
    case 'logic': {
      const l = compile(e.left);
      const r = compile(e.right);
      if (e.op === 'AND') {
        return (c) => {
          const a = l(c);
          if (a === false) return false;
          const b = r(c);
          if (b === false) return false;
          return a === null || b === null ? null : true;
        };
      }
      return (c) => {
        const a = l(c);
        if (a === true) return true;
        const b = r(c);
        if (b === true) return true;
        return a === null || b === null ? null : false;
      };
    }
    case 'compare': {
      const l = compile(e.left);
      const r = compile(e.right);
      const test = TEST[e.op];
      const cmp = comparator(e.left.type);
      return (c) => {
        const a = l(c);
        if (a === null) return null;
        const b = r(c);
        return b === null ? null : test(cmp(a, b));
      };
    }
    case 'between': {
      // Exactly `x >= low AND x <= high` (ClickHouse's own rewrite), so NULL bounds agree.
      const x = compile(e.operand);
      const lo = compile(e.low);
      const hi = compile(e.high);
      const cmp = comparator(e.operand.type);
      const negated = e.negated;
      return (c) => {
        const v = x(c);
        if (v === null) return null;
        const a = lo(c);
        const b = hi(c);
        const geLow = a === null ? null : cmp(v, a) >= 0;
        const leHigh = b === null ? null : cmp(v, b) <= 0;
        const inside = geLow === false || leHigh === false ? false : geLow === null || leHigh === null ? null : true;
        return inside === null ? null : inside !== negated;
      };
    }
    case 'in': {
      const f = compile(e.operand);
      const cmp = comparator(e.operand.type);
      const values = e.values;
      const negated = e.negated;
      // Lists hold literals only, never NULL, so membership is plain.
      const set = e.operand.type === 'string' || e.operand.type === 'date' ? new Set<Value>(values) : null;
      return (c) => {
        const v = f(c);
        if (v === null) return null;
        const found = set ? set.has(v) : values.some((x) => cmp(v, x) === 0);
        return found !== negated;
      };
    }
    case 'like': {
      const f = compile(e.operand);
      const matches = compileLike(e.pattern);
      const negated = e.negated;
      return (c) => {
        const v = f(c);
        return v === null ? null : matches(v as string) !== negated;
      };
    }
    case 'isNull': {
      const f = compile(e.operand);
      const negated = e.negated;
      return (c) => (f(c) === null) !== negated;
    }
  }
}

function reader(ref: Ref): Compiled {
  switch (ref.source) {
    case 'transaction': {
      const k = ref.name;
      return (c) => c.transaction[k] ?? null;
    }
    case 'counter': {
      const k = ref.name;
      return (c) => c.counters[k] ?? null;
    }
    case 'table': {
      const t = ref.table;
      const k = ref.column;
      return (c) => c.tables[t]?.[k] ?? null;
    }
    case 'aggregate': {
      const t = ref.table;
      const k = ref.name;
      return (c) => c.tables[t]?.[k] ?? 0;
    }
  }
}

const ARITH: Record<'+' | '-' | '*' | '/', (a: number, b: number) => number> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
};

/** NaN compares false under every operator but `!=`, as in ClickHouse. */
const TEST: Record<CompareOp, (d: number) => boolean> = {
  '=': (d) => d === 0,
  '!=': (d) => d !== 0,
  '<': (d) => d < 0,
  '<=': (d) => d <= 0,
  '>': (d) => d > 0,
  '>=': (d) => d >= 0,
};

function comparator(type: ValueType): (a: Value, b: Value) => number {
  if (type === 'string') return (a, b) => compareStrings(a as string, b as string);
  if (type === 'date') return (a, b) => ((a as string) < (b as string) ? -1 : a === b ? 0 : 1);
  if (type === 'boolean') return (a, b) => Number(a) - Number(b);
  // NaN when either side is NaN, which every test but != reads as false; Infinity equals itself.
  return (a, b) => ((a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : a === b ? 0 : NaN);
}

/** Evaluates for triggering: NULL counts as false. */
export const holds = (f: Compiled, ctx: EvalContext): boolean => f(ctx) === true;
