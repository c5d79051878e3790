import { describe, expect, it } from 'vitest';
import { Diagnostics } from './diagnostics.js';
import { tokenize } from './lexer.js';

const lex = (source: string) => {
  const diags = new Diagnostics();
  return { lines: tokenize(source, diags), diags: diags.list };
};

describe('lexer', () => {
  it('reads each kind of token with its 1-based line and column', () => {
    const { lines, diags } = lex('\n  scene "A {{x}}" 1.5s #0af 16:9 asset:a_b-1.png 0.8 {{ y }} // note');
    expect(diags).toEqual([]);
    expect(lines).toEqual([
      {
        line: 2,
        damaged: false,
        tokens: [
          { line: 2, column: 3, kind: 'word', value: 'scene' },
          { line: 2, column: 9, kind: 'string', parts: [{ text: 'A ' }, { variable: 'x', at: { line: 2, column: 12 } }] },
          { line: 2, column: 19, kind: 'duration', seconds: 1.5, raw: '1.5s' },
          { line: 2, column: 24, kind: 'color', value: '#00AAFF', raw: '#0af' },
          { line: 2, column: 29, kind: 'ratio', value: '16:9' },
          { line: 2, column: 34, kind: 'asset', id: 'a_b-1.png' },
          { line: 2, column: 50, kind: 'number', value: 0.8, raw: '0.8' },
          { line: 2, column: 54, kind: 'variable', name: 'y' },
        ],
      },
    ]);
  });

  it('converts ms and m to seconds and unescapes strings', () => {
    const { lines } = lex('x 250ms 2m "a\\"b\\\\c\\nd\\{{e"');
    expect(lines[0]!.tokens.slice(1)).toMatchObject([{ seconds: 0.25 }, { seconds: 120 }, { parts: [{ text: 'a"b\\c\nd{{e' }] }]);
  });

  it('reports a bad token, drops it, marks the line and reads on', () => {
    const { lines, diags } = lex('text @ "ok"\ntitle "x"');
    expect(diags.map((d) => [d.code, d.line, d.column])).toEqual([['unexpected-token', 1, 6]]);
    expect(lines.map((l) => [l.tokens.length, l.damaged])).toEqual([
      [2, true],
      [2, false],
    ]);
  });

  it('accepts CRLF and CR line ends', () => {
    expect(lex('a\r\nb\rc').lines.map((l) => l.line)).toEqual([1, 2, 3]);
  });
});
