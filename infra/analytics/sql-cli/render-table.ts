/** A query result as ClickHouse's JSONCompact format answers it. */
export interface CompactResult {
  meta: { name: string; type: string }[];
  data: unknown[][];
}

const cell = (v: unknown): string => (v === null ? 'NULL' : typeof v === 'string' ? v : JSON.stringify(v));
const NUMERIC = /^(U?Int|Float|Decimal)/;

/**
 * The result as a text table for a terminal: a header, a rule, one line per row, numbers aligned
 * right (Nullable and LowCardinality see through to the type inside), and the row count.
 */
export function renderTable(result: CompactResult): string {
  const names = result.meta.map((m) => m.name);
  const rows = result.data.map((r) => r.map(cell));
  const widths = names.map((n, i) => Math.max(n.length, ...rows.map((r) => r[i]!.length)));
  const right = result.meta.map((m) => NUMERIC.test(m.type.replace(/^(Nullable|LowCardinality)\(/, '')));
  const line = (cells: string[]) => cells.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' │ ').trimEnd();
  const count = `${rows.length} ${rows.length === 1 ? 'row' : 'rows'}`;
  if (names.length === 0) return `${count}\n`;
  return [line(names), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...rows.map(line), count].join('\n') + '\n';
}
