import { Diagnostics } from './diagnostics.js';
import { tokenize, type StringPart, type Token } from './lexer.js';

/**
 * Where things are in a script's source text: the parser's tokens and positions, kept so an edit
 * can change one token or move whole scenes without rewriting anything else, and a JSON view of
 * the script (`model`) that edit operations address with JSON Pointer. Pure; a script that does
 * not compile still has an outline (what could be read of it).
 */

/** A token's place: 1-based line, its first column and the column just after it (UTF-16 units). */
export interface Span {
  line: number;
  column: number;
  end: number;
}

export type LayerOutline =
  | { kind: 'title' | 'text'; line: number; text: string; span: Span }
  | { kind: 'image' | 'video' | 'audio' | 'background'; line: number };

export interface SceneOutline {
  /** The `scene` line. */
  line: number;
  /** The scene's last line: the line before the next scene, or the script's last line. */
  lastLine: number;
  /** The scene's last non-blank line. */
  contentEnd: number;
  name: string;
  nameSpan?: Span;
  seconds?: number;
  durationSpan?: Span;
  transition?: { line: number; column: number; kind: string; seconds?: number };
  layers: LayerOutline[];
}

export interface ScriptOutline {
  lines: string[];
  /** The line ending the source uses (the first one found; LF without any). */
  eol: string;
  title?: { text: string; line: number; span: Span };
  mood?: { value: string; span: Span };
  aspect?: string;
  scenes: SceneOutline[];
}

/** The JSON view edits address: /title, /mood, /aspect, /scenes/<i>/{name,duration,transition,layers/<j>/text}. */
export interface ScriptModel {
  title: string | null;
  mood: string | null;
  aspect: string | null;
  scenes: {
    name: string;
    duration: number | null;
    transition: { kind: string; duration: number | null } | null;
    layers: ({ kind: 'title' | 'text'; text: string } | { kind: 'image' | 'video' | 'audio' | 'background' })[];
  }[];
}

const textOf = (parts: StringPart[]): string => parts.map((p) => ('text' in p ? p.text : `{{${p.variable}}}`)).join('');

/** The column just after the string literal that opens at `column` (its closing quote included). */
function stringEnd(lineText: string, column: number): number {
  let i = column;
  while (i < lineText.length && lineText[i] !== '"') i += lineText[i] === '\\' ? 2 : 1;
  return i + 2;
}

function spanOf(t: Token, lineText: string): Span {
  const end =
    t.kind === 'string'
      ? stringEnd(lineText, t.column)
      : t.column + (t.kind === 'word' ? t.value.length : t.kind === 'duration' || t.kind === 'number' || t.kind === 'color' ? t.raw.length : 0);
  return { line: t.line, column: t.column, end };
}

export function outline(source: string): ScriptOutline {
  const lines = source.split(/\r\n|\r|\n/);
  const eol = /\r\n|\r|\n/.exec(source)?.[0] ?? '\n';
  const out: ScriptOutline = { lines, eol, scenes: [] };
  for (const { line, tokens } of tokenize(source, new Diagnostics())) {
    const head = tokens[0]!;
    if (head.kind !== 'word') continue;
    const text = lines[line - 1]!;
    const arg = tokens[1];
    const scene = out.scenes.at(-1);
    if (head.value === 'scene') {
      if (scene) scene.lastLine = line - 1;
      const s: SceneOutline = { line, lastLine: lines.length, contentEnd: line, name: '', layers: [] };
      if (arg?.kind === 'string') [s.name, s.nameSpan] = [textOf(arg.parts), spanOf(arg, text)];
      const d = tokens.find((t) => t.kind === 'duration');
      if (d?.kind === 'duration') [s.seconds, s.durationSpan] = [d.seconds, spanOf(d, text)];
      out.scenes.push(s);
      continue;
    }
    if (scene) scene.contentEnd = line;
    if (!scene) {
      if (head.value === 'film' && arg?.kind === 'string') out.title = { text: textOf(arg.parts), line, span: spanOf(arg, text) };
      else if (head.value === 'mood' && arg && (arg.kind === 'word' || arg.kind === 'string')) out.mood = { value: arg.kind === 'word' ? arg.value : textOf(arg.parts), span: spanOf(arg, text) };
      else if (head.value === 'aspect' && arg?.kind === 'ratio') out.aspect = arg.value;
      continue;
    }
    if ((head.value === 'title' || head.value === 'text') && arg?.kind === 'string') scene.layers.push({ kind: head.value, line, text: textOf(arg.parts), span: spanOf(arg, text) });
    else if (head.value === 'image' || head.value === 'video' || head.value === 'audio' || head.value === 'background') scene.layers.push({ kind: head.value, line });
    else if (head.value === 'transition' && arg?.kind === 'word') {
      const d = tokens[2];
      scene.transition = { line, column: head.column, kind: arg.value, ...(d?.kind === 'duration' ? { seconds: d.seconds } : {}) };
    }
  }
  return out;
}

export function modelOf(o: ScriptOutline): ScriptModel {
  return {
    title: o.title?.text ?? null,
    mood: o.mood?.value ?? null,
    aspect: o.aspect ?? null,
    scenes: o.scenes.map((s) => ({
      name: s.name,
      duration: s.seconds ?? null,
      transition: s.transition ? { kind: s.transition.kind, duration: s.transition.seconds ?? null } : null,
      layers: s.layers.map((l) => ('text' in l ? { kind: l.kind, text: l.text } : { kind: l.kind })),
    })),
  };
}

/** The index of the scene holding `line` (1-based), or null for the film's lines before the first scene. */
export function sceneAt(o: ScriptOutline, line: number): number | null {
  const i = o.scenes.findLastIndex((s) => s.line <= line);
  return i < 0 ? null : i;
}
