import { describe, expect, it } from 'vitest';
import { testSchema } from '../../test/fixtures/rules-schema.js';
import { checkExpression } from './check.js';
import { ExpressionError } from './errors.js';
import { ruleProblem } from './rule.js';

function problem(src: string): { line: number; column: number; reason: string } {
  try {
    checkExpression(src, testSchema);
  } catch (err) {
    if (err instanceof ExpressionError) return { line: err.at.line, column: err.at.column, reason: err.reason };
    throw err;
  }
  throw new Error(`'${src}' checked`);
}

describe('type checker', () => {
  it('resolves transaction fields, custom fields, counters, table columns and aggregates', () => {
    const t = checkExpression(
      "amount > 10 AND risk_score >= 0.5 AND entity_counters.txn_count_1h > 3 AND accounts.tier = 'gold' AND payments.count_1h < 5",
      testSchema,
    );
    expect(t.type).toBe('boolean');
  });

  it.each([
    ['amout > 3', 1, 1, "unknown identifier 'amout'"],
    ['txn_count_1h > 3', 1, 1, "unknown identifier 'txn_count_1h' (a counter is read as entity_counters.txn_count_1h)"],
    ['entity_counters.nope > 3', 1, 1, "unknown counter 'nope' in entity_counters"],
    ['amount > 1 AND ghosts.x = 1', 1, 16, "unknown table 'ghosts'"],
    ['accounts.colour = 1', 1, 1, "unknown column 'colour' in table 'accounts'"],
  ])('unknown identifier: %s', (src, line, column, reason) => {
    expect(problem(src)).toEqual({ line, column, reason });
  });

  it.each([
    ["amount > 'ten'", 1, 10, "'>' compares number with string"],
    ['amount + currency > 1', 1, 10, "'+' needs a number operand, got string"],
    ['amount', 1, 1, 'the expression must be true or false, but it is a number'],
    ['NOT amount', 1, 5, 'NOT needs a boolean operand, got number'],
    ['pep AND amount', 1, 9, 'AND needs a boolean operand, got number'],
    ["currency IN ('NGN', 3)", 1, 21, 'IN list value of type number where string is expected'],
    ['currency IN (device_fingerprint)', 1, 14, 'IN lists hold literals only'],
    ['currency LIKE device_fingerprint', 1, 15, 'the pattern of LIKE must be a string literal'],
    ["currency LIKE 'a\\b'", 1, 15, "'\\' may only precede"],
    ["transaction_date > '2023-02-29'", 1, 20, "'2023-02-29' is not a date (YYYY-MM-DD)"],
    ["last_login < 'yesterday'", 1, 14, "'yesterday' is not a datetime"],
    ["amount BETWEEN 1 AND 'x'", 1, 22, 'BETWEEN needs a number operand, got string'],
    ['signup_date = last_login', 1, 15, "'=' compares date with datetime"],
  ])('type error: %s', (src, line, column, reason) => {
    const p = problem(src);
    expect([p.line, p.column]).toEqual([line, column]);
    expect(p.reason).toContain(reason);
  });

  it('reads string literals as dates or datetimes on either side of a comparison', () => {
    expect(checkExpression("'2024-01-01' <= transaction_date AND last_login > '2024-01-01T00:00:00Z'", testSchema).type).toBe('boolean');
    expect(checkExpression("transaction_date IN ('2024-01-01', '2024-01-02') AND amount IN (-1, 2)", testSchema).type).toBe('boolean');
  });

  it('names the evaluation and the position in a rule problem', () => {
    expect(ruleProblem([{ name: 'ok', expression: 'amount > 1' }, { name: 'bad', expression: 'amount >' }], testSchema)).toBe(
      "evaluation 'bad': line 1, column 9: unexpected end of expression: a value is missing",
    );
    expect(ruleProblem([{ name: 'ok', expression: 'amount > 1' }], testSchema)).toBeNull();
  });
});
