/**
 * LIKE patterns: `%` any run of characters, `_` one character, `\` makes the next `%`, `_` or `\`
 * literal. This is ClickHouse's LIKE (case-sensitive, whole string); other escapes are refused so
 * the two back ends cannot read a pattern differently.
 */
export function likeProblem(pattern: string): string | null {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '\\') continue;
    const next = pattern[i + 1];
    if (next !== '%' && next !== '_' && next !== '\\') return `in a LIKE pattern '\\' may only precede %, _ or \\ (position ${i + 1})`;
    i++;
  }
  return null;
}

export function likeToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') out += escape(pattern[++i] ?? '');
    else if (c === '%') out += '[\\s\\S]*';
    else if (c === '_') out += '[\\s\\S]';
    else out += escape(c);
  }
  return new RegExp(`^${out}$`, 'u');
}

const escape = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
