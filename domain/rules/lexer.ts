import { ExpressionError, type Position } from './errors.js';

export const KEYWORDS = ['AND', 'OR', 'NOT', 'IN', 'BETWEEN', 'IS', 'NULL', 'LIKE', 'TRUE', 'FALSE'] as const;
export type Keyword = (typeof KEYWORDS)[number];
const KEYWORD_SET: ReadonlySet<string> = new Set(KEYWORDS);

export type Punct = '(' | ')' | ',' | '.' | '=' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/';

export type Token =
  | { kind: 'number'; value: number; text: string; start: Position; end: Position }
  | { kind: 'string'; value: string; text: string; start: Position; end: Position }
  | { kind: 'ident'; value: string; text: string; start: Position; end: Position }
  | { kind: 'keyword'; value: Keyword; text: string; start: Position; end: Position }
  | { kind: 'punct'; value: Punct; text: string; start: Position; end: Position }
  | { kind: 'eof'; value: null; text: ''; start: Position; end: Position };

/** Operators longest first, so `<=` wins over `<`. `==` and `<>` are accepted spellings of `=` and `!=`. */
const OPERATORS: [string, Punct][] = [
  ['<=', '<='], ['>=', '>='], ['!=', '!='], ['<>', '!='], ['==', '='],
  ['(', '('], [')', ')'], [',', ','], ['.', '.'], ['=', '='], ['<', '<'], ['>', '>'], ['+', '+'], ['-', '-'], ['*', '*'], ['/', '/'],
];

const NUMBER = /[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;

export const isKeyword = (word: string): boolean => KEYWORD_SET.has(word.toUpperCase());

/** Splits an expression into tokens, each with its start and end position. */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let offset = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (o: number): Position => ({ offset: o, line, column: o - lineStart + 1 });

  while (offset < src.length) {
    const ch = src[offset]!;
    if (ch === '\n') {
      offset++;
      line++;
      lineStart = offset;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      offset++;
      continue;
    }
    const start = pos(offset);
    if (ch === "'" || ch === '"') {
      // SQL style: the delimiter doubled stands for itself; no other escapes.
      let value = '';
      let i = offset + 1;
      for (;;) {
        if (i >= src.length) throw new ExpressionError('unterminated string literal', start);
        const c = src[i]!;
        if (c === ch) {
          if (src[i + 1] === ch) {
            value += ch;
            i += 2;
            continue;
          }
          break;
        }
        if (c === '\n') throw new ExpressionError('unterminated string literal', start);
        value += c;
        i++;
      }
      const text = src.slice(offset, i + 1);
      offset = i + 1;
      tokens.push({ kind: 'string', value, text, start, end: pos(offset) });
      continue;
    }
    NUMBER.lastIndex = offset;
    const num = NUMBER.exec(src);
    if (num) {
      offset += num[0].length;
      if (/[A-Za-z_]/.test(src[offset] ?? '')) throw new ExpressionError(`invalid number '${num[0]}${src[offset]}'`, start);
      tokens.push({ kind: 'number', value: Number(num[0]), text: num[0], start, end: pos(offset) });
      continue;
    }
    IDENT.lastIndex = offset;
    const word = IDENT.exec(src);
    if (word) {
      offset += word[0].length;
      const upper = word[0].toUpperCase();
      const end = pos(offset);
      if (KEYWORD_SET.has(upper)) tokens.push({ kind: 'keyword', value: upper as Keyword, text: word[0], start, end });
      else tokens.push({ kind: 'ident', value: word[0], text: word[0], start, end });
      continue;
    }
    const op = OPERATORS.find(([text]) => src.startsWith(text, offset));
    if (!op) throw new ExpressionError(`unexpected character '${ch}'`, start);
    offset += op[0].length;
    tokens.push({ kind: 'punct', value: op[1], text: op[0], start, end: pos(offset) });
  }
  const end = pos(offset);
  tokens.push({ kind: 'eof', value: null, text: '', start: end, end });
  return tokens;
}
