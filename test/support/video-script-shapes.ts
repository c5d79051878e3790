/**
 * Scripts of the shapes that stress the video compiler, each built to a given size: the benchmark
 * (bench/video-compile-shapes.ts) times them at the API's largest script, and the compiler's
 * linearity test counts the work they cost at two sizes.
 */
import type { Variables } from '../../domain/video/args.js';

export interface ScriptShape {
  name: string;
  build(chars: number): { source: string; variables?: Variables };
}

/** The largest script POST /api/compile accepts (MAX_SOURCE_CHARS), less a margin for the header lines. */
export const SHAPE_CHARS = 495_000;

/** `unit(i)` repeated until the script reaches `chars`. */
function repeat(chars: number, head: string, unit: (i: number) => string): string {
  const parts = [head];
  let length = head.length;
  for (let i = 0; length < chars; i++) {
    const u = unit(i);
    parts.push(u);
    length += u.length;
  }
  return parts.join('');
}

const FILM = 'film "Shapes"\nmood calm\n';
/** `c` repeated to about `chars` characters. */
const long = (chars: number, c: string) => c.repeat(Math.max(1, Math.floor((chars - 64) / c.length)));

export const SCRIPT_SHAPES: ScriptShape[] = [
  { name: 'many empty scenes', build: (n) => ({ source: repeat(n, FILM, (i) => `scene "s${i}" 1s\n`) }) },
  { name: 'empty scenes after errors', build: (n) => ({ source: repeat(n, FILM, (i) => `scene "s${i}" 1s\n  text 12\n`) }) },
  { name: 'many unknown directives', build: (n) => ({ source: repeat(n, `${FILM}scene "a" 1s\n`, (i) => `  bogus${i % 10}\n`) }) },
  { name: 'many bad tokens on one line', build: (n) => ({ source: `${FILM}scene "a" 1s\n  text "x" ${long(n, '#z ')}\n` }) },
  { name: 'one long unknown word', build: (n) => ({ source: `${FILM}scene "a" 1s\n  ${long(n, 'q')}\n` }) },
  { name: 'one long bad option word', build: (n) => ({ source: `${FILM}scene "a" 1s\n  image asset:x ${long(n, 'f')}\n` }) },
  { name: 'one long mood name', build: (n) => ({ source: `film "x"\nmood ${long(n, 'c')}\nscene "a" 1s\n` }) },
  { name: 'one long text line', build: (n) => ({ source: `${FILM}scene "a" 1s\n  text "${long(n, 'word ')}"\n` }) },
  { name: 'one long word in text', build: (n) => ({ source: `${FILM}scene "a" 1s\n  text "${long(n, 'w')}"\n` }) },
  { name: 'deep text in one scene', build: (n) => ({ source: repeat(n, `${FILM}scene "a" 60s\n`, (i) => `  text "line ${i} of a long scene"\n`) }) },
  { name: 'many text scenes', build: (n) => ({ source: repeat(n, FILM, (i) => `scene "s${i}" 2s\n  title "T${i}"\n  text "body {{v${i % 100}}}"\n  transition fade 0.5s\n`) }) },
  { name: 'many distinct variables', build: (n) => ({ source: repeat(n, `${FILM}scene "a" 60s\n`, (i) => `  text "{{v${i}}} {{w${i}}}"\n`) }) },
  {
    name: 'one long variable used everywhere',
    build: (n) => ({ source: repeat(n, `${FILM}scene "a" 60s\n`, () => '  background {{c}}\n'), variables: { c: `#${'0'.repeat(9_998)}` } }),
  },
  { name: 'many unclosed placeholders', build: (n) => ({ source: `${FILM}scene "a" 1s\n  text "${long(n, '{{')}"\n` }) },
  { name: 'many unterminated strings', build: (n) => ({ source: repeat(n, `${FILM}scene "a" 1s\n`, () => '  text "open\n') }) },
  { name: 'duplicate scene names', build: (n) => ({ source: repeat(n, FILM, () => 'scene "same" 1s\n  background #000\n') }) },
  { name: 'many short lines', build: (n) => ({ source: repeat(n, `${FILM}scene "a" 1s\n`, () => '\n') }) },
  { name: 'many comments', build: (n) => ({ source: repeat(n, `${FILM}scene "a" 1s\n`, (i) => `// note ${i}\n`) }) },
];
