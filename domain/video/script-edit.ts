import { isDeepStrictEqual } from 'node:util';
import { modelOf, outline, type ScriptOutline, type Span } from './script-outline.js';

/**
 * Structured edits of a script: JSON Patch operations (RFC 6902's add, remove, replace, move and
 * test) addressed by JSON Pointer over the script's JSON view (script-outline.ts `modelOf`),
 * applied to the source text at the tokens' positions, so everything an edit does not name
 * (comments, spacing, other directives) stays as written. All or nothing: the first operation
 * that cannot apply stops the edit, and the caller keeps the source it had. Whether the result
 * compiles is the caller's question (compile.ts).
 *
 * Addresses: /title, /mood, /scenes/<i> (add, remove, move; `-` appends), /scenes/<i>/name,
 * /scenes/<i>/duration (seconds), /scenes/<i>/transition ({kind, duration?}; remove for the
 * mood's default), /scenes/<i>/layers/<j>/text (a title or text line); test reads any address.
 */

export type EditOp =
  | { op: 'add' | 'replace' | 'test'; path: string; value?: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move'; from: string; path: string };

export type EditFailure = { index: number; code: 'bad-path' | 'bad-value' | 'test-failed'; message: string };

export type EditResult =
  | {
      ok: true;
      source: string;
      /** For each scene of the result, the index it had before the edit (null: added by it). */
      sceneOrigin: (number | null)[];
    }
  | ({ ok: false } & EditFailure);

/** Longest text an edit may write into one string, and most lines of a scene it adds. */
export const MAX_EDIT_TEXT = 2_000;
export const MAX_NEW_SCENE_LINES = 50;

class Refused extends Error {
  constructor(
    readonly code: EditFailure['code'],
    message: string,
  ) {
    super(message);
  }
}

const WORD = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** The segments of a JSON Pointer (RFC 6901). */
function segments(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Refused('bad-path', `${JSON.stringify(pointer)} is not a JSON Pointer; it starts with /`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Refused('bad-value', `${what} must be a string`);
  if (value.length > MAX_EDIT_TEXT) throw new Refused('bad-value', `${what} is longer than ${MAX_EDIT_TEXT} characters`);
  if (value.includes('\r')) throw new Refused('bad-value', `${what} may not hold a carriage return; write \\n for a line break`);
  return value;
}

const quote = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;

function seconds(value: unknown, what: string): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Refused('bad-value', `${what} must be a number of seconds`);
  return `${Number(value.toFixed(3))}s`;
}

function word(value: unknown, what: string): string {
  const s = text(value, what);
  if (!WORD.test(s)) throw new Refused('bad-value', `${what} must be a word such as fade (letters, digits, _ and -)`);
  return s;
}

function transitionLine(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Refused('bad-value', 'a transition is {kind, duration?}');
  const { kind, duration, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new Refused('bad-value', `a transition has only kind and duration, not ${Object.keys(rest).join(', ')}`);
  return `transition ${word(kind, 'transition kind')}${duration === undefined || duration === null ? '' : ` ${seconds(duration, 'transition duration')}`}`;
}

function sceneBlock(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Refused('bad-value', 'a new scene is {name, duration, lines?}');
  const { name, duration, lines = [], ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new Refused('bad-value', `a new scene has only name, duration and lines, not ${Object.keys(rest).join(', ')}`);
  if (!Array.isArray(lines) || lines.length > MAX_NEW_SCENE_LINES) throw new Refused('bad-value', `lines must be an array of at most ${MAX_NEW_SCENE_LINES} directive lines`);
  const body = lines.map((l, i) => {
    const line = text(l, `lines[${i}]`).trim();
    if (line.includes('\n')) throw new Refused('bad-value', `lines[${i}] holds a line break; give one directive a line`);
    if (/^scene\b/.test(line)) throw new Refused('bad-value', `lines[${i}] starts another scene; add each scene with its own operation`);
    return `  ${line}`;
  });
  return [`scene ${quote(text(name, 'name'))} ${seconds(duration, 'duration')}`, ...body];
}

/** The script's lines being edited, re-read after every operation. */
class Draft {
  lines: string[];
  o: ScriptOutline;
  constructor(
    source: string,
    readonly origin: (number | null)[],
  ) {
    this.o = outline(source);
    this.lines = this.o.lines;
  }

  get source(): string {
    return this.lines.join(this.o.eol);
  }

  private reread(): void {
    this.o = outline(this.source);
    this.lines = this.o.lines;
  }

  replaceSpan(span: Span, value: string): void {
    const l = this.lines[span.line - 1]!;
    this.lines[span.line - 1] = l.slice(0, span.column - 1) + value + l.slice(span.end - 1);
    this.reread();
  }

  /** Replaces lines [from, from + count) (0-based) with `insert`. */
  splice(from: number, count: number, insert: string[]): string[] {
    const cut = this.lines.splice(from, count, ...insert);
    this.reread();
    return cut;
  }

  scene(segment: string | undefined, forAdd = false): number {
    const n = this.o.scenes.length;
    if (forAdd && segment === '-') return n;
    const i = segment !== undefined && /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : NaN;
    if (!(i < n || (forAdd && i === n))) throw new Refused('bad-path', `the script has ${n} scene${n === 1 ? '' : 's'}; there is no scene ${segment ?? ''}`);
    return i;
  }

  /** Inserts a scene's lines before scene `at` (or after the last), a blank line between scenes. */
  insertScene(at: number, block: string[]): void {
    while (block.length > 1 && block.at(-1)!.trim() === '') block.pop();
    const next = this.o.scenes[at];
    if (next) {
      this.splice(next.line - 1, 0, [...block, '']);
      return;
    }
    let end = this.lines.length;
    while (end > 0 && this.lines[end - 1]!.trim() === '') end--;
    this.splice(end, 0, [...(end > 0 ? [''] : []), ...block]);
  }

  /** Inserts `line` among the film's lines: after the title line, else first. */
  insertFilmLine(line: string): void {
    this.splice(this.o.title ? this.o.title.line : 0, 0, [line]);
  }
}

function apply(d: Draft, op: EditOp): void {
  const path = segments(op.path);
  if (op.op === 'test') {
    let at: unknown = modelOf(d.o);
    for (const s of path) {
      if (typeof at !== 'object' || at === null || !Object.hasOwn(at, s)) throw new Refused('bad-path', `${op.path} is not in the script`);
      at = (at as Record<string, unknown>)[s];
    }
    if (!isDeepStrictEqual(at, op.value)) throw new Refused('test-failed', `${op.path} is ${JSON.stringify(at)}, not ${JSON.stringify(op.value)}`);
    return;
  }
  if (op.op === 'move') {
    const from = segments(op.from);
    if (from.length !== 2 || from[0] !== 'scenes' || path.length !== 2 || path[0] !== 'scenes') throw new Refused('bad-path', 'move takes scenes: from /scenes/<i> to /scenes/<j>');
    const i = d.scene(from[1]);
    const s = d.o.scenes[i]!;
    const block = d.splice(s.line - 1, s.lastLine - s.line + 1, []);
    const [moved] = d.origin.splice(i, 1);
    const j = d.scene(path[1], true);
    d.insertScene(j, block);
    d.origin.splice(j, 0, moved!);
    return;
  }
  const [head, index, field, layer, leaf, ...extra] = path;
  const setting = op.op !== 'remove';
  const value = setting ? op.value : undefined;
  if (head === 'title' && path.length === 1) {
    if (!setting) return void (d.o.title && d.splice(d.o.title.line - 1, 1, []));
    const t = quote(text(value, 'title'));
    return void (d.o.title ? d.replaceSpan(d.o.title.span, t) : d.insertFilmLine(`film ${t}`));
  }
  if (head === 'mood' && path.length === 1) {
    if (!setting) return void (d.o.mood && d.splice(d.o.mood.span.line - 1, 1, []));
    const m = text(value, 'mood');
    const written = WORD.test(m) ? m : quote(m);
    return void (d.o.mood ? d.replaceSpan(d.o.mood.span, written) : d.insertFilmLine(`mood ${written}`));
  }
  if (head !== 'scenes' || index === undefined || extra.length > 0) throw new Refused('bad-path', `${op.path} is not an address an edit can change`);
  if (field === undefined) {
    if (op.op === 'add') {
      const at = d.scene(index, true);
      d.insertScene(at, sceneBlock(value));
      d.origin.splice(at, 0, null);
    } else if (op.op === 'remove') {
      const i = d.scene(index);
      const s = d.o.scenes[i]!;
      d.splice(s.line - 1, s.lastLine - s.line + 1, []);
      d.origin.splice(i, 1);
    } else throw new Refused('bad-path', `replace a scene's fields (${op.path}/name, /duration, /transition, /layers/<j>/text), or remove and add it`);
    return;
  }
  const s = d.o.scenes[d.scene(index)]!;
  const where = `scene ${index} ("${s.name}")`;
  if (field === 'name' && layer === undefined && setting) {
    if (!s.nameSpan) throw new Refused('bad-path', `${where} has no name to replace`);
    return d.replaceSpan(s.nameSpan, quote(text(value, 'name')));
  }
  if (field === 'duration' && layer === undefined && setting) {
    const written = seconds(value, 'duration');
    if (s.durationSpan) return d.replaceSpan(s.durationSpan, written);
    if (!s.nameSpan) throw new Refused('bad-path', `${where} has no name to put a duration after`);
    return d.replaceSpan({ ...s.nameSpan, column: s.nameSpan.end }, ` ${written}`);
  }
  if (field === 'transition' && layer === undefined) {
    const t = s.transition;
    if (!setting) {
      if (!t) throw new Refused('bad-path', `${where} has no transition line`);
      return void d.splice(t.line - 1, 1, []);
    }
    const line = transitionLine(value);
    if (t) return void d.splice(t.line - 1, 1, [d.lines[t.line - 1]!.slice(0, t.column - 1) + line]);
    const indent = /^\s*/.exec(d.lines[(s.layers[0]?.line ?? s.line + 1) - 1] ?? '')?.[0] || '  ';
    return void d.splice(s.contentEnd, 0, [indent + line]);
  }
  if (field === 'layers' && leaf === 'text' && op.op === 'replace') {
    const l = s.layers[Number(layer)];
    if (!/^(0|[1-9]\d*)$/.test(layer ?? '') || !l) throw new Refused('bad-path', `${where} has ${s.layers.length} layers; there is no layer ${layer ?? ''}`);
    if (!('span' in l)) throw new Refused('bad-path', `layer ${layer} of ${where} is ${l.kind === 'image' ? 'an' : 'a'} ${l.kind}, which has no text`);
    return d.replaceSpan(l.span, quote(text(value, 'text')));
  }
  throw new Refused('bad-path', `${op.op} ${op.path} is not an edit of this script language; see docs/video-documents.md`);
}

/** Applies every operation in order, each to the result of the one before; all of them, or none. */
export function applyEdits(source: string, ops: EditOp[]): EditResult {
  const draft = new Draft(source, outline(source).scenes.map((_, i) => i));
  for (const [index, op] of ops.entries()) {
    try {
      apply(draft, op);
    } catch (err) {
      if (err instanceof Refused) return { ok: false, index, code: err.code, message: err.message };
      throw err;
    }
  }
  return { ok: true, source: draft.source, sceneOrigin: draft.origin };
}
