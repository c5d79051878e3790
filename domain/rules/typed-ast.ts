import type { ArithOp, CompareOp, LogicOp } from './ast.js';
import type { Value, ValueType } from './values.js';

/** Where a named value comes from; the evaluator and the SQL compiler each know how to fetch it. */
export type Ref =
  | { source: 'transaction'; name: string }
  | { source: 'counter'; name: string }
  | { source: 'table'; table: string; column: string }
  /** A windowState aggregate of an event_stream table, kept incrementally in the window store. */
  | { source: 'aggregate'; table: string; name: string };

/** The checked tree: every node knows its type, literals are already in runtime form. */
export type TExpr =
  | { kind: 'literal'; type: ValueType; value: Exclude<Value, null> }
  | { kind: 'ref'; type: ValueType; ref: Ref }
  | { kind: 'neg'; type: 'number'; operand: TExpr }
  | { kind: 'arith'; type: 'number'; op: ArithOp; left: TExpr; right: TExpr }
  | { kind: 'not'; type: 'boolean'; operand: TExpr }
  | { kind: 'logic'; type: 'boolean'; op: LogicOp; left: TExpr; right: TExpr }
  | { kind: 'compare'; type: 'boolean'; op: CompareOp; left: TExpr; right: TExpr }
  | { kind: 'in'; type: 'boolean'; operand: TExpr; values: Exclude<Value, null>[]; negated: boolean }
  | { kind: 'between'; type: 'boolean'; operand: TExpr; low: TExpr; high: TExpr; negated: boolean }
  | { kind: 'like'; type: 'boolean'; operand: TExpr; pattern: string; negated: boolean }
  | { kind: 'isNull'; type: 'boolean'; operand: TExpr; negated: boolean };

/** What an organization's expressions may name. */
export interface Schema {
  /** Transaction fields and the organization's custom fields. */
  fields: ReadonlyMap<string, ValueType>;
  /** The qualifier of counters (`entity_counters` unless configured otherwise). */
  counterTable: string;
  counters: ReadonlyMap<string, ValueType>;
  tables: ReadonlyMap<string, { columns: ReadonlyMap<string, ValueType>; aggregates: ReadonlyMap<string, ValueType> }>;
}

/** Every reference of a tree, each once, so callers fetch only the data an expression needs. */
export function refsOf(e: TExpr, into: Map<string, Ref> = new Map()): Map<string, Ref> {
  switch (e.kind) {
    case 'literal':
      break;
    case 'ref':
      into.set(JSON.stringify(e.ref), e.ref);
      break;
    case 'neg':
    case 'not':
    case 'in':
    case 'like':
    case 'isNull':
      refsOf(e.operand, into);
      break;
    case 'arith':
    case 'logic':
    case 'compare':
      refsOf(e.left, into);
      refsOf(e.right, into);
      break;
    case 'between':
      refsOf(e.operand, into);
      refsOf(e.low, into);
      refsOf(e.high, into);
      break;
  }
  return into;
}
