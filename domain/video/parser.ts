import { ArgReader, type Variables } from './args.js';
import type { FilmAst } from './ast.js';
import { excerpt, hint, type Diagnostics } from './diagnostics.js';
import { DIRECTIVES } from './directives.js';
import { describeToken, tokenize } from './lexer.js';

/**
 * Parses a script into its typed form. Every line is one directive; film directives come before
 * the first `scene`, and each scene owns the directives after it up to the next `scene`
 * (indentation is for the reader). Errors are reported and the line skipped, so one pass finds
 * them all.
 */
export function parse(source: string, variables: Variables, diags: Diagnostics): FilmAst {
  const film: FilmAst = { audio: [], scenes: [], variables: new Set() };
  for (const { tokens, damaged } of tokenize(source, diags)) {
    for (const t of tokens) {
      if (t.kind === 'variable') film.variables.add(t.name);
      if (t.kind === 'string') for (const p of t.parts) if ('variable' in p) film.variables.add(p.variable);
    }
    const head = tokens[0]!;
    const rest = tokens.slice(1);
    if (head.kind !== 'word') {
      diags.error(head, 'expected-directive', `a line starts with a directive such as scene or text, not ${describeToken(head)}`);
      continue;
    }
    const spec = Object.hasOwn(DIRECTIVES, head.value) ? DIRECTIVES[head.value] : undefined;
    if (!spec) {
      diags.error(head, 'unknown-directive', () => `unknown directive ${excerpt(head.value)}${hint(head.value, Object.keys(DIRECTIVES))}`);
      continue;
    }
    const scene = film.scenes.at(-1);
    if (spec.scope === 'scene' && !scene) {
      diags.error(head, 'outside-scene', `${head.value} belongs inside a scene; start one with scene "<name>" <duration>`);
      continue;
    }
    if (spec.scope === 'film' && head.value !== 'scene' && scene) {
      diags.error(head, 'after-scenes', `${head.value} applies to the whole film and goes before the first scene`);
      continue;
    }
    spec.apply(new ArgReader(head, rest, variables, diags, damaged), { film, scene: head.value === 'scene' ? undefined : scene, diags });
  }
  return film;
}
