import { HighlightStyle, StreamLanguage, syntaxHighlighting, type StringStream } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';
import { Diagnostics } from '../domain/video/diagnostics.js';
import { DIRECTIVES } from '../domain/video/directives.js';
import { tokenize, type Token } from '../domain/video/lexer.js';
import { moodNames, PALETTE_ROLES, TRANSITION_KINDS } from '../domain/video/moods.js';

/**
 * Highlighting for the script language, read by the compiler's own lexer (domain/video/lexer.ts):
 * each line is tokenized as the compiler would, and a character the lexer drops is marked invalid.
 * Words are classed from the language's tables: directives, moods, transitions, palette colours,
 * and the options each directive's usage names (`[volume <0..2>]`).
 */

export const DIRECTIVE_NAMES = Object.keys(DIRECTIVES);
const MOODS = new Set(moodNames());
const TRANSITIONS = new Set<string>(TRANSITION_KINDS);
const ROLES = new Set<string>(PALETTE_ROLES);
export const OPTION_NAMES = new Set(Object.values(DIRECTIVES).flatMap((d) => [...d.usage.matchAll(/\[(\w+)/g)].map((m) => m[1]!)));
const CHOICES = new Set(Object.values(DIRECTIVES).flatMap((d) => d.usage.split(/[\s|<>[\]]+/).filter((w) => /^[a-z]+$/.test(w) && !DIRECTIVES[w])));

/** The lexer's tokens of one line, by start column; lines repeat as the editor re-reads them. */
const lineCache = new Map<string, Map<number, Token>>();
function tokensOf(line: string): Map<number, Token> {
  let found = lineCache.get(line);
  if (!found) {
    found = new Map((tokenize(line, new Diagnostics())[0]?.tokens ?? []).map((tok) => [tok.column - 1, tok]));
    if (lineCache.size > 2000) lineCache.clear();
    lineCache.set(line, found);
  }
  return found;
}

function styleOf(tok: Token, first: boolean): string | null {
  switch (tok.kind) {
    case 'word':
      if (first) return DIRECTIVES[tok.value] ? 'keyword' : 'invalid';
      if (MOODS.has(tok.value) || TRANSITIONS.has(tok.value)) return 'atom';
      if (ROLES.has(tok.value)) return 'className';
      if (OPTION_NAMES.has(tok.value)) return 'propertyName';
      return CHOICES.has(tok.value) ? 'atom' : null;
    case 'string':
      return 'string';
    case 'variable':
      return 'variableName';
    case 'number':
    case 'duration':
    case 'ratio':
      return 'number';
    case 'color':
      return 'literal';
    case 'asset':
    case 'source':
      return 'link';
  }
}

/** Where a token that starts at `pos` ends, by the lexer's rules for its kind. */
function endOf(line: string, pos: number, tok: Token): number {
  if (tok.kind === 'string') {
    let i = pos + 1;
    while (i < line.length && line[i] !== '"') i += line[i] === '\\' ? 2 : 1;
    return Math.min(line.length, i + 1);
  }
  if (tok.kind === 'variable') return pos + (/^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}/.exec(line.slice(pos))?.[0].length ?? 2);
  return bareEnd(line, pos);
}

const bareEnd = (line: string, pos: number) => {
  let i = pos;
  while (i < line.length && line[i] !== ' ' && line[i] !== '\t' && line[i] !== '"') i++;
  return Math.max(i, pos + 1);
};

const scriptLanguage = StreamLanguage.define<{ seen: number }>({
  name: 'weir-script',
  startState: () => ({ seen: 0 }),
  copyState: (s) => ({ ...s }),
  token(stream: StringStream, state) {
    if (stream.sol()) state.seen = 0;
    if (stream.eatSpace()) return null;
    if (stream.match('//')) {
      stream.skipToEnd();
      return 'comment';
    }
    const line = stream.string;
    const tok = tokensOf(line).get(stream.pos);
    const first = state.seen++ === 0;
    if (!tok) {
      stream.pos = bareEnd(line, stream.pos);
      return 'invalid';
    }
    stream.pos = endOf(line, stream.pos, tok);
    return styleOf(tok, first);
  },
  languageData: { commentTokens: { line: '//' } },
});

const highlight = HighlightStyle.define([
  { tag: t.keyword, color: 'var(--syn-keyword)', fontWeight: '600' },
  { tag: t.string, color: 'var(--syn-string)' },
  { tag: t.number, color: 'var(--syn-number)' },
  { tag: t.literal, color: 'var(--syn-color)' },
  { tag: t.atom, color: 'var(--syn-atom)' },
  { tag: t.className, color: 'var(--syn-role)' },
  { tag: t.propertyName, color: 'var(--syn-option)', fontStyle: 'italic' },
  { tag: t.variableName, color: 'var(--syn-variable)', fontWeight: '600' },
  { tag: t.link, color: 'var(--syn-asset)', textDecoration: 'underline' },
  { tag: t.comment, color: 'var(--syn-comment)', fontStyle: 'italic' },
  { tag: t.invalid, color: 'var(--syn-invalid)', textDecoration: 'underline wavy' },
]);

export const scriptHighlighting = [scriptLanguage, syntaxHighlighting(highlight)];
