import { sceneAt, type ScriptOutline } from './script-outline.js';

/**
 * Where an annotation points, and where it points after the script changes. A scene anchor
 * follows its scene wherever it moves; a line anchor follows the lines it covers, found in the
 * same scene (or among the film's lines) of the new text by their content. Pure.
 */

export interface Anchor {
  /** `scene`: the annotation is about a scene as a whole; `line`: about lines line..endLine. */
  kind: 'line' | 'scene';
  line: number;
  endLine: number;
  /** The scene holding the lines; null for the film's lines before the first scene. */
  scene: number | null;
}

/** For each scene of `after`, the scene of `before` it is: the n-th scene of a name is the n-th of that name before. */
export function scenesByName(before: ScriptOutline, after: ScriptOutline): (number | null)[] {
  const seen = new Map<string, number>();
  return after.scenes.map((s) => {
    const n = seen.get(s.name) ?? 0;
    seen.set(s.name, n + 1);
    const i = before.scenes.findIndex((b, k) => b.name === s.name && before.scenes.slice(0, k).filter((x) => x.name === s.name).length === n);
    return i < 0 ? null : i;
  });
}

/** An anchor on `o` from what a caller names: lines (endLine defaults to line), else a scene. Null when they lie outside the script. */
export function anchorOn(o: ScriptOutline, at: { line?: number; endLine?: number; scene?: number }): Anchor | null {
  if (at.line !== undefined) {
    const endLine = at.endLine ?? at.line;
    if (at.line > o.lines.length || endLine > o.lines.length || endLine < at.line) return null;
    const scene = sceneAt(o, at.line);
    if (at.scene !== undefined && at.scene !== scene) return null;
    return { kind: 'line', line: at.line, endLine, scene };
  }
  const s = at.scene === undefined ? undefined : o.scenes[at.scene];
  return s ? { kind: 'scene', line: s.line, endLine: s.contentEnd, scene: at.scene! } : null;
}

/** The 1-based lines of a scene's block (the film's own lines for null). */
function blockOf(o: ScriptOutline, scene: number | null): { first: number; last: number } {
  if (scene === null) return { first: 1, last: (o.scenes[0]?.line ?? o.lines.length + 1) - 1 };
  const s = o.scenes[scene]!;
  return { first: s.line, last: s.lastLine };
}

/** Longest common subsequence of two blocks' lines: old line number -> new line number. */
function matchLines(a: string[], aFirst: number, b: string[], bFirst: number): Map<number, number> {
  const m = new Map<number, number>();
  // Blocks are a scene's lines; a table of their product stays small. Beyond it, only equal ends match.
  if (a.length * b.length > 4_000_000) {
    for (let i = 0; i < Math.min(a.length, b.length) && a[i] === b[i]; i++) m.set(aFirst + i, bFirst + i);
    return m;
  }
  const w = b.length + 1;
  const t = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) t[i * w + j] = a[i] === b[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) m.set(aFirst + i++, bFirst + j++);
    else if (t[(i + 1) * w + j]! >= t[i * w + j + 1]!) i++;
    else j++;
  }
  return m;
}

/**
 * The anchor in the new text, or null when what it points at is gone (the annotation is then
 * outdated). `sceneOrigin[i]` is the old index of new scene i (an edit knows it; otherwise
 * scenesByName).
 */
export function reanchor(anchor: Anchor, before: ScriptOutline, after: ScriptOutline, sceneOrigin: (number | null)[]): Anchor | null {
  const scene = anchor.scene === null ? null : sceneOrigin.indexOf(anchor.scene);
  if (scene === -1) return null;
  if (anchor.kind === 'scene') {
    const s = after.scenes[scene!]!;
    return { kind: 'scene', line: s.line, endLine: s.contentEnd, scene };
  }
  const [from, to] = [blockOf(before, anchor.scene), blockOf(after, scene)];
  const lines = matchLines(before.lines.slice(from.first - 1, from.last), from.first, after.lines.slice(to.first - 1, to.last), to.first);
  const mapped: number[] = [];
  for (let l = anchor.line; l <= anchor.endLine; l++) {
    const n = lines.get(l);
    if (n === undefined) return null;
    mapped.push(n);
  }
  return { kind: 'line', line: mapped[0]!, endLine: mapped.at(-1)!, scene };
}
