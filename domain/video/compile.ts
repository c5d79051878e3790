import { fillText, type Variables } from './args.js';
import type { Aspect, FilmAst, LayerAst, SceneAst } from './ast.js';
import { Diagnostics, type Diagnostic, type Position } from './diagnostics.js';
import { countWords, frameSize, wrap } from './layout.js';
import { DEFAULT_MOOD, MOODS, resolveMood, type MoodProfile, type Palette, type TypeFace } from './moods.js';
import { parse } from './parser.js';
import type { AudioNode, LayerNode, RenderGraph, SceneNode } from './render-graph.js';
import { THEME_PACKS, type ThemeName } from './themes.js';

export interface CompileOptions {
  variables?: Variables;
  theme?: ThemeName;
  /** Render small (360p) and at 15 frames a second at most, for a quick look. */
  preview?: boolean;
  /** Used when the script does not set them (a template's defaults); the mood a built-in or an alias. */
  defaults?: { mood?: string; aspect?: Aspect };
}

export type CompileResult = { ok: true; renderGraph: RenderGraph; diagnostics: Diagnostic[] } | { ok: false; diagnostics: Diagnostic[] };

export const PREVIEW_SHORT_SIDE = 360;
export const PREVIEW_MAX_FPS = 15;
export const DEFAULT_SHORT_SIDE = 1080;
export const DEFAULT_FPS = 30;
export const MAX_FILM_SECONDS = 3600;
/** More lines than this in one text layer look crowded. */
const MAX_LINES = 4;

const START: Position = { line: 1, column: 1 };

/** Compiles script source into a render graph; pure, and every finding comes back at once. */
export function compile(source: string, options: CompileOptions = {}): CompileResult {
  const diags = new Diagnostics();
  const variables = options.variables ?? {};
  const film = parse(source, variables, diags);
  const graph = build(film, options, variables, diags);
  const diagnostics = diags.sorted();
  return diags.hasErrors || !graph ? { ok: false, diagnostics } : { ok: true, renderGraph: graph, diagnostics };
}

interface Style {
  mood: MoodProfile;
  palette: Palette;
  title: TypeFace;
  body: TypeFace;
}

function styleOf(mood: MoodProfile, theme: ThemeName | undefined): Style {
  const pack = theme ? THEME_PACKS[theme] : undefined;
  const family = (f: TypeFace, over: TypeFace['family'] | undefined): TypeFace => (over ? { ...f, family: over } : f);
  return {
    mood,
    palette: { ...mood.palette, ...pack?.palette },
    title: family(mood.typography.title, pack && 'titleFamily' in pack ? pack.titleFamily : undefined),
    body: family(mood.typography.body, pack && 'bodyFamily' in pack ? pack.bodyFamily : undefined),
  };
}

function build(film: FilmAst, options: CompileOptions, variables: Variables, diags: Diagnostics): RenderGraph | null {
  if (film.scenes.length === 0) {
    diags.error(START, 'no-scenes', 'a film needs at least one scene: scene "<name>" <duration>');
    return null;
  }
  const moodName = film.mood?.name ?? options.defaults?.mood;
  const resolved = moodName ? resolveMood(moodName) : null;
  const mood = resolved?.profile ?? MOODS[DEFAULT_MOOD];
  const style = styleOf(mood, options.theme);
  const preview = options.preview === true;
  const aspect = film.aspect?.value ?? options.defaults?.aspect ?? '16:9';
  const { width, height } = frameSize(aspect, preview ? PREVIEW_SHORT_SIDE : (film.resolution?.value ?? DEFAULT_SHORT_SIDE));
  const fps = Math.min(film.fps?.value ?? DEFAULT_FPS, preview ? PREVIEW_MAX_FPS : Infinity);
  const used = { assets: new Set<string>(), sources: new Set<string>() };
  const fill: Filler = (t) => {
    const r = fillText(t.parts, variables);
    for (const u of r.unbound) diags.warn(u.at, 'unknown-variable', `{{${u.name}}} has no value; the text shows it as written`);
    return r.text;
  };
  if (!film.title) diags.warn(START, 'untitled', 'the film has no title; add film "<title>"');

  const names = new Map<string, number>();
  const scenes: SceneNode[] = [];
  const erred = errorLines(diags);
  film.scenes.forEach((s, index) => {
    const name = fill(s.name);
    const earlier = names.get(name);
    if (earlier !== undefined) diags.warn(s.name.at, 'duplicate-scene', `scene "${name}" has the same name as the scene on line ${earlier}`);
    names.set(name, s.at.line);
    const duration = s.seconds ?? 0;
    if (duration > 0 && duration < mood.pacing.minSceneSeconds) {
      diags.warn(s.at, 'scene-too-short', `scene "${name}" lasts ${duration}s; the ${mood.name} mood reads best with scenes of at least ${mood.pacing.minSceneSeconds}s`);
    }
    if (s.layers.length === 0 && !s.background && !erred(s.at.line, film.scenes[index + 1]?.at.line ?? Infinity)) diags.warn(s.at, 'empty-scene', `scene "${name}" has no content; it renders as the mood's background colour`);
    for (const l of s.layers) {
      if (l.kind === 'image' || l.kind === 'video') used.assets.add(l.assetId);
      if (l.kind === 'clip') used.sources.add(l.sourceId);
    }
    if (s.background?.fill.kind === 'asset') used.assets.add(s.background.fill.assetId);
    const layers = layout(s, name, duration, style, { width, height }, fill, diags);
    scenes.push({
      index,
      name,
      line: s.at.line,
      start: 0,
      duration,
      background: background(s, style.palette),
      layers,
      transition: null,
      audio: s.audio.map((a) => audioNode(a, 0, duration, used.assets)),
    });
  });
  linkTransitions(film.scenes, scenes, mood, diags);
  const durationSeconds = round3(scenes.reduce((t, s) => t + s.duration - (s.transition?.duration ?? 0), 0));
  if (durationSeconds > MAX_FILM_SECONDS) diags.error(START, 'film-too-long', `the film lasts ${durationSeconds}s; at most ${MAX_FILM_SECONDS}s`);
  return {
    version: '1',
    film: {
      title: film.title ? fill(film.title) : 'Untitled',
      mood: mood.name,
      ...(resolved?.alias ? { moodAlias: resolved.requested } : {}),
      ...(options.theme ? { theme: options.theme } : {}),
      aspect,
      width,
      height,
      fps,
      durationSeconds,
      preview,
    },
    style: { palette: style.palette },
    scenes,
    audio: film.audio.map((a) => audioNode(a, 0, durationSeconds, used.assets)),
    assets: [...used.assets],
    variables: [...film.variables],
    ...(used.sources.size > 0 ? { sources: [...used.sources] } : {}),
  };
}

/**
 * Whether an error was reported on lines [from, to): a dropped line makes an empty scene expected.
 * The error lines are sorted once and each question is a binary search, so a script of many empty
 * scenes and many errors costs no more than its length (a scan per scene was quadratic).
 */
function errorLines(diags: Diagnostics): (from: number, to: number) => boolean {
  const lines = [...diags.errorLines].sort((a, b) => a - b);
  return (from, to) => {
    let [lo, hi] = [0, lines.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (lines[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    return lo < lines.length && lines[lo]! < to;
  };
}

function background(s: SceneAst, palette: Palette): SceneNode['background'] {
  const f = s.background?.fill;
  if (f?.kind === 'color') return { kind: 'color', color: f.color };
  if (f?.kind === 'role') return { kind: 'color', color: palette[f.role] };
  if (f?.kind === 'asset') return { kind: 'asset', assetId: f.assetId, color: palette.background };
  return { kind: 'color', color: palette.background };
}

function audioNode(a: { assetId: string; volume: number; fadeIn: number; fadeOut: number }, start: number, duration: number, assets: Set<string>): AudioNode {
  assets.add(a.assetId);
  return { assetId: a.assetId, start, duration, volume: a.volume, fadeIn: a.fadeIn, fadeOut: a.fadeOut };
}

interface Frame {
  width: number;
  height: number;
}

type Filler = (t: { parts: Parameters<typeof fillText>[0] }) => string;

/**
 * Places the scene's text: a centred block (the lower third when a picture shares the frame),
 * each layer wrapped to the frame and entering after the previous one by the mood's stagger.
 */
function layout(s: SceneAst, name: string, duration: number, style: Style, frame: Frame, fill: Filler, diags: Diagnostics): LayerNode[] {
  const short = Math.min(frame.width, frame.height);
  const motion = style.mood.motion;
  const gap = Math.round(style.body.scale * short * 0.6);
  const nodes: LayerNode[] = [];
  const texts: (LayerNode & { kind: 'title' | 'text' })[] = [];
  let words = 0;
  for (const l of s.layers) {
    if (l.kind === 'image' || l.kind === 'video') {
      nodes.push(picture(l));
      continue;
    }
    if (l.kind === 'clip') {
      nodes.push(clip(l, duration, diags));
      continue;
    }
    if (l.kind === 'caption') {
      const node = caption(l, fill(l.text), duration, style, frame, diags);
      if (node) nodes.push(node);
      continue;
    }
    const text = fill(l.text);
    if (!text.trim()) diags.warn(l.text.at, 'empty-text', `${l.kind} is empty`);
    words += countWords(text);
    const face = l.kind === 'title' ? style.title : style.body;
    const font = { family: face.family, weight: face.weight, size: Math.round(face.scale * short) };
    const wrapped = wrap(text, font, frame.width);
    if (wrapped.overflows) diags.warn(l.text.at, 'text-overflow', `a word of this ${l.kind} is wider than the frame and will be cut off`);
    else if (wrapped.lines.length > MAX_LINES) diags.warn(l.text.at, 'text-overflow', `this ${l.kind} wraps to ${wrapped.lines.length} lines; more than ${MAX_LINES} crowd the frame`);
    const node = {
      kind: l.kind,
      line: l.at.line,
      lines: wrapped.lines,
      font,
      color: l.kind === 'title' ? style.palette.primary : style.palette.text,
      y: 0,
      lineHeight: Math.round(font.size * (1 + style.mood.typography.lineSpacing)),
      enter: { kind: motion.textEntrance, at: round3(Math.min(texts.length * motion.staggerSeconds, duration / 2)), duration: motion.entranceSeconds },
    };
    texts.push(node);
    nodes.push(node);
  }
  const block = texts.reduce((h, t) => h + t.lines.length * t.lineHeight, 0) + gap * Math.max(0, texts.length - 1);
  const hasPicture = s.layers.some((l) => l.kind === 'image' || l.kind === 'video' || l.kind === 'clip');
  const margin = Math.round(frame.height * 0.05);
  let y = Math.max(margin, hasPicture ? Math.min(Math.round(frame.height * 0.68), frame.height - margin - block) : Math.round((frame.height - block) / 2));
  for (const t of texts) {
    t.y = y;
    y += t.lines.length * t.lineHeight + gap;
  }
  const readable = style.mood.pacing.wordsPerSecond * duration;
  if (duration > 0 && words > readable) {
    diags.warn(s.at, 'text-too-long', `scene "${name}" has ${words} words for ${duration}s; at the ${style.mood.name} mood's ${style.mood.pacing.wordsPerSecond} words a second it needs ${round1(words / style.mood.pacing.wordsPerSecond)}s`);
  }
  return nodes;
}

/**
 * Sets each scene's transition into the next (the script's, else the mood's) and the scenes'
 * start times: a transition overlaps the two scenes, as ffmpeg's xfade does. A transition longer
 * than a scene it joins is shortened to fit, with a warning.
 */
function linkTransitions(asts: SceneAst[], scenes: SceneNode[], mood: MoodProfile, diags: Diagnostics): void {
  let incoming = 0;
  scenes.forEach((scene, i) => {
    const ast = asts[i]!;
    const next = scenes[i + 1];
    const kind = ast.transition?.kind ?? mood.transition.kind;
    if (!next) {
      if (ast.transition && kind !== 'cut') diags.warn(ast.transition.at, 'transition-at-end', 'the last scene has no next scene to transition to; the transition is ignored');
      return;
    }
    const wanted = kind === 'cut' ? 0 : (ast.transition?.seconds ?? (mood.transition.seconds || 0.5));
    const room = round3(Math.min(scene.duration - incoming, next.duration) / 2);
    let seconds = wanted;
    if (scene.duration === 0 || next.duration === 0) seconds = 0;
    else if (wanted > 0 && (wanted >= scene.duration || wanted >= next.duration || wanted > room)) {
      seconds = Math.max(0, room);
      const at = ast.transition?.at ?? ast.at;
      diags.warn(at, 'transition-too-long', `the ${wanted}s ${kind} is longer than scene "${wanted >= next.duration && wanted < scene.duration ? next.name : scene.name}" allows; it is shortened to ${seconds}s`);
    }
    scene.transition = kind === 'cut' || seconds === 0 ? null : { kind, duration: seconds };
    incoming = scene.transition?.duration ?? 0;
  });
  let start = 0;
  for (const scene of scenes) {
    scene.start = start;
    for (const a of scene.audio) a.start = start;
    start = round3(start + scene.duration - (scene.transition?.duration ?? 0));
  }
}

/** A source window: as long as the scene unless `to` ends it sooner (its last frame then holds). */
function clip(l: LayerAst & { kind: 'clip' }, duration: number, diags: Diagnostics): LayerNode {
  const window = l.to ? round3(l.to.seconds - l.from) : duration;
  if (l.to && duration > 0 && window < duration) diags.warn(l.to.at, 'clip-shorter-than-scene', `the source window lasts ${window}s and the scene ${duration}s; its last frame holds for the rest`);
  if (l.to && duration > 0 && window > duration) diags.warn(l.to.at, 'clip-longer-than-scene', `the source window lasts ${window}s but the scene only ${duration}s; the rest is cut off (make the scene ${window}s)`);
  return { kind: 'clip', line: l.at.line, sourceId: l.sourceId, from: l.from, duration: Math.min(window, duration), muted: l.muted };
}

/** Share of the frame's shorter side a caption's letters take; its box is black, its text white, for any footage under it. */
const CAPTION_SCALE = 0.05;
const CAPTION_MAX_LINES = 2;

/** A timed caption: wrapped to the frame, sitting on the bottom margin, within its scene. */
function caption(l: LayerAst & { kind: 'caption' }, text: string, duration: number, style: Style, frame: Frame, diags: Diagnostics): LayerNode | null {
  if (duration > 0 && l.from.seconds >= duration) {
    diags.error(l.from.at, 'out-of-range', `the caption appears at ${l.from.seconds}s, after its scene of ${duration}s ends`);
    return null;
  }
  const end = l.to && l.to.seconds <= duration ? l.to.seconds : duration;
  if (l.to && l.to.seconds > duration) diags.warn(l.to.at, 'caption-past-scene', `the caption would stay until ${l.to.seconds}s; its scene ends at ${duration}s, and so does the caption`);
  if (!text.trim()) diags.warn(l.text.at, 'empty-text', 'caption is empty');
  const short = Math.min(frame.width, frame.height);
  const font = { family: style.body.family, weight: 'regular' as const, size: Math.round(CAPTION_SCALE * short) };
  const wrapped = wrap(text, font, frame.width);
  if (wrapped.overflows || wrapped.lines.length > CAPTION_MAX_LINES) diags.warn(l.text.at, 'text-overflow', `this caption wraps to ${wrapped.lines.length} lines; more than ${CAPTION_MAX_LINES} cover the picture`);
  const lineHeight = Math.round(font.size * 1.3);
  const y = frame.height - Math.round(frame.height * 0.06) - wrapped.lines.length * lineHeight;
  return { kind: 'caption', line: l.at.line, lines: wrapped.lines, font, color: '#FFFFFF', box: '#000000', y, lineHeight, start: l.from.seconds, end };
}

function picture(l: LayerAst & { kind: 'image' | 'video' }): LayerNode {
  return l.kind === 'image' ? { kind: 'image', line: l.at.line, assetId: l.assetId, fit: l.fit } : { kind: 'video', line: l.at.line, assetId: l.assetId, from: l.from, muted: l.muted };
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round3 = (n: number) => Math.round(n * 1000) / 1000;
