import { excerpt, type Diagnostics, type Position } from './diagnostics.js';

/** A piece of a string literal: literal text or a `{{name}}` placeholder at its own position. */
export type StringPart = { text: string } | { variable: string; at: Position };

export type Token = Position &
  (
    | { kind: 'word'; value: string }
    | { kind: 'string'; parts: StringPart[] }
    | { kind: 'variable'; name: string }
    | { kind: 'number'; value: number; raw: string }
    | { kind: 'duration'; seconds: number; raw: string }
    | { kind: 'color'; value: string; raw: string }
    | { kind: 'ratio'; value: string }
    | { kind: 'asset'; id: string }
    | { kind: 'source'; id: string }
  );
export type TokenKind = Token['kind'];

/** The tokens of one non-blank source line. */
export interface Line {
  line: number;
  tokens: Token[];
  /** Whether a bad token was reported and dropped: later complaints about missing arguments would repeat it. */
  damaged: boolean;
}

const VARIABLE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/;
const WORD = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const NUMBER = /^\d+(?:\.\d+)?$/;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m)$/;
const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RATIO = /^\d+:\d+$/;
const ASSET = /^asset:([A-Za-z0-9][A-Za-z0-9._-]{0,127})$/;
const SOURCE = /^source:([A-Za-z0-9][A-Za-z0-9._-]{0,127})$/;
const UNIT_SECONDS = { ms: 0.001, s: 1, m: 60 } as const;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', n: '\n', t: '\t', '{': '{' };

/**
 * Splits source into lines of tokens. A bad token is reported and skipped, so the rest of the line
 * and every later line are still read. `//` starts a comment to the end of the line.
 */
export function tokenize(source: string, diags: Diagnostics): Line[] {
  const lines: Line[] = [];
  source.split(/\r\n|\r|\n/).forEach((text, i) => {
    const before = diags.reported;
    const tokens = tokenizeLine(text, i + 1, diags);
    if (tokens.length > 0) lines.push({ line: i + 1, tokens, damaged: diags.reported > before });
  });
  return lines;
}

function tokenizeLine(text: string, line: number, diags: Diagnostics): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    const at = { line, column: i + 1 };
    if (text.startsWith('//', i)) break;
    if (c === '"') {
      const s = readString(text, i, line, diags);
      if (s.token) tokens.push(s.token);
      i = s.end;
      continue;
    }
    if (text.startsWith('{{', i)) {
      const m = VARIABLE.exec(text.slice(i));
      if (m) {
        tokens.push({ ...at, kind: 'variable', name: m[1]! });
        i += m[0].length;
        continue;
      }
    }
    let end = i;
    while (end < text.length && text[end] !== ' ' && text[end] !== '\t' && text[end] !== '"') end++;
    const raw = text.slice(i, end);
    const token = classify(raw, at, diags);
    if (token) tokens.push(token);
    i = end;
  }
  return tokens;
}

/** Reads one bare token, dispatching on its first character so most tokens meet one pattern. */
function classify(raw: string, at: Position, diags: Diagnostics): Token | null {
  const { line, column } = at;
  const c = raw.charCodeAt(0);
  if (c >= 48 && c <= 57) {
    if (NUMBER.test(raw)) return { line, column, kind: 'number', value: Number(raw), raw };
    const d = DURATION.exec(raw);
    if (d) return { line, column, kind: 'duration', seconds: round3(Number(d[1]) * UNIT_SECONDS[d[2] as keyof typeof UNIT_SECONDS]), raw };
    if (RATIO.test(raw)) return { line, column, kind: 'ratio', value: raw };
    diags.error(at, 'bad-number', `${excerpt(raw)} is not a number or a duration; durations carry a unit: 3s, 500ms, 1m`);
    return null;
  }
  if (c === 35) {
    if (COLOR.test(raw)) return { line, column, kind: 'color', value: normalizeColor(raw), raw };
    diags.error(at, 'bad-color', `${excerpt(raw)} is not a colour; write #rgb or #rrggbb in hexadecimal`);
    return null;
  }
  if (raw.startsWith('asset:')) {
    const a = ASSET.exec(raw);
    if (a) return { line, column, kind: 'asset', id: a[1]! };
    diags.error(at, 'bad-asset', `${excerpt(raw)} is not an asset reference; write asset:<id> with letters, digits, '.', '_' or '-'`);
    return null;
  }
  if (raw.startsWith('source:')) {
    const m = SOURCE.exec(raw);
    if (m) return { line, column, kind: 'source', id: m[1]! };
    diags.error(at, 'bad-source', `${excerpt(raw)} is not a source reference; write source:<id> with the id of a source (src_…)`);
    return null;
  }
  if (WORD.test(raw)) return { line, column, kind: 'word', value: raw };
  if (raw.startsWith('{{')) diags.error(at, 'bad-variable', `${excerpt(raw)} is not a variable; write {{name}} with a letter or _ first`);
  else diags.error(at, 'unexpected-token', `unexpected ${excerpt(raw)}`);
  return null;
}

/** Reads a string literal starting at the quote; placeholders keep their own columns. */
function readString(text: string, start: number, line: number, diags: Diagnostics): { token: Token | null; end: number } {
  const parts: StringPart[] = [];
  let literal = '';
  let bad = false;
  let i = start + 1;
  const flush = () => {
    if (literal) parts.push({ text: literal });
    literal = '';
  };
  while (i < text.length && text[i] !== '"') {
    const c = text[i]!;
    if (c === '\\') {
      const e = ESCAPES[text[i + 1] ?? ''];
      if (e === undefined) {
        diags.error({ line, column: i + 1 }, 'bad-escape', `unknown escape \\${text[i + 1] ?? ''}; use \\" \\\\ \\n \\t or \\{`);
        bad = true;
      } else literal += e;
      i += 2;
      continue;
    }
    if (text.startsWith('{{', i)) {
      const m = VARIABLE.exec(text.slice(i));
      if (!m) {
        diags.error({ line, column: i + 1 }, 'bad-variable', 'a {{ in text must open a variable such as {{name}}; write \\{{ for literal braces');
        bad = true;
        i += 2;
        continue;
      }
      flush();
      parts.push({ variable: m[1]!, at: { line, column: i + 1 } });
      i += m[0].length;
      continue;
    }
    literal += c;
    i++;
  }
  if (i >= text.length) {
    diags.error({ line, column: start + 1 }, 'unterminated-string', 'string is not closed; add " before the end of the line');
    return { token: null, end: i };
  }
  flush();
  return { token: bad ? null : { line, column: start + 1, kind: 'string', parts }, end: i + 1 };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

function normalizeColor(raw: string): string {
  const hex = raw.slice(1).toUpperCase();
  return `#${hex.length === 3 ? [...hex].map((h) => h + h).join('') : hex}`;
}

/** How a token reads in a message. */
export function describeToken(t: Token): string {
  switch (t.kind) {
    case 'word':
      return excerpt(t.value);
    case 'string':
      return 'a string';
    case 'variable':
      return `{{${excerpt(t.name)}}}`;
    case 'number':
    case 'duration':
    case 'color':
      return excerpt(t.raw);
    case 'ratio':
      return excerpt(t.value);
    case 'asset':
      return `asset:${t.id}`;
    case 'source':
      return `source:${t.id}`;
  }
}
