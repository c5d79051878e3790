import type { AudioNode, LayerNode, RenderGraph, SceneNode } from './render-graph.js';

/**
 * Builds ffmpeg's arguments for a render graph: one filter graph that draws every scene (colour or
 * asset background, pictures, text through drawtext with fontconfig font names), joins scenes with
 * xfade (or concat for cuts), mixes the audio (silence when there is none, so every file has an
 * AAC track) and encodes H.264 + AAC in an MP4 with its index first (faststart). Pure: the renderer
 * resolves asset ids to files and runs ffmpeg.
 */

export interface AssetFile {
  path: string;
  kind: 'image' | 'video' | 'audio';
}

export const X264_PRESETS = ['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium'] as const;

export interface EncodeOptions {
  /** x264 constant rate factor: lower is better and bigger. */
  crf: number;
  /** x264 preset: faster presets trade size for speed. */
  preset: (typeof X264_PRESETS)[number];
  audioBitrate: string;
  /** Encoder and filter threads; 0 lets ffmpeg choose (one per core). */
  threads: number;
}

export const DEFAULT_ENCODE: EncodeOptions = { crf: 23, preset: 'ultrafast', audioBitrate: '192k', threads: 0 };
const SAMPLE_RATE = 48_000;

/** A long-form source's media file, and which streams it has (from its preprocessing). */
export interface SourceFile {
  path: string;
  video: boolean;
  audio: boolean;
}

export class MissingAssetError extends Error {
  constructor(readonly assetId: string, readonly wanted: string, what: 'asset' | 'source' = 'asset') {
    super(`${what} ${assetId} is needed as ${wanted} and was not provided`);
  }
}

/**
 * Quotes an option value for a filter's own option parser (level 1: `'…'`, a quote as `'\''`),
 * the level that protects `:` in font patterns and `,` in expressions.
 */
export const quoteOption = (value: string): string => `'${value.replaceAll("'", "'\\''")}'`;

/** Escapes a filter's whole argument string for the filter-graph parser (level 2). */
export const escapeForGraph = (args: string): string => args.replace(/[\\'[\],;]/g, '\\$&');

/** A filter with options; values are quoted, then the whole is escaped for the graph. */
function filter(name: string, options: Record<string, string | number>): string {
  const args = Object.entries(options)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? fmt(v) : quoteOption(v)}`)
    .join(':');
  return `${name}=${escapeForGraph(args)}`;
}

const fmt = (n: number): string => String(Math.round(n * 1000) / 1000);
const hex = (color: string) => `0x${color.slice(1)}`;

/** One input file with the options that go before its `-i`. */
export interface InputFile {
  path: string;
  options: string[];
}

class Inputs {
  readonly list: InputFile[] = [];

  constructor(
    private readonly assets: Readonly<Record<string, AssetFile>>,
    private readonly sources: Readonly<Record<string, SourceFile>>,
  ) {}

  /** A window of a source: `-ss` seeks the input, so only the window is decoded. */
  addSource(sourceId: string, from: number, seconds: number): { index: number; file: SourceFile } {
    const file = Object.hasOwn(this.sources, sourceId) ? this.sources[sourceId] : undefined;
    if (!file) throw new MissingAssetError(sourceId, 'a clip', 'source');
    this.list.push({ path: file.path, options: [...(from > 0 ? ['-ss', fmt(from)] : []), '-t', fmt(seconds)] });
    return { index: this.list.length - 1, file };
  }

  add(assetId: string, kinds: AssetFile['kind'][], wanted: string, before: (a: AssetFile) => string[]): { index: number; file: AssetFile } {
    const file = Object.hasOwn(this.assets, assetId) ? this.assets[assetId] : undefined;
    if (!file || !kinds.includes(file.kind)) throw new MissingAssetError(assetId, wanted);
    this.list.push({ path: file.path, options: before(file) });
    return { index: this.list.length - 1, file };
  }
}

/** A picture input for `seconds`: a still image repeated at the film's rate, or a clip. */
const pictureInput = (fps: number, seconds: number, from = 0) => (a: AssetFile) =>
  a.kind === 'image' ? ['-loop', '1', '-framerate', String(fps), '-t', fmt(seconds)] : [...(from > 0 ? ['-ss', fmt(from)] : []), '-t', fmt(seconds)];

/** Scales a picture to cover the box (cropping) or to fit inside it. */
function fit(mode: 'cover' | 'contain', w: number, h: number): string {
  return mode === 'cover'
    ? `${filter('scale', { w, h, force_original_aspect_ratio: 'increase' })},${filter('crop', { w, h })}`
    : filter('scale', { w, h, force_original_aspect_ratio: 'decrease' });
}

/** An entrance as drawtext `alpha` and `y` expressions (t is seconds into the scene). */
function entrance(layer: Extract<LayerNode, { kind: 'title' | 'text' }>, y: number): Record<string, string | number> {
  const { kind, at, duration } = layer.enter;
  if (kind === 'cut' || duration === 0) return { y, enable: `gte(t,${fmt(at)})` };
  const progress = `min(1,max(0,(t-${fmt(at)})/${fmt(duration)}))`;
  return kind === 'rise' ? { y: `${y}+${Math.round(layer.font.size * 0.4)}*(1-${progress})`, alpha: progress } : { y, alpha: progress };
}

function drawText(layer: Extract<LayerNode, { kind: 'title' | 'text' }>): string[] {
  // drawtext takes `font` as a bare fontconfig family; a `fontfile` that is no file is read as a
  // fontconfig pattern and merged with it, which is how a weight reaches fontconfig.
  const weight: Record<string, string> = layer.font.weight === 'bold' ? { fontfile: ':style=Bold' } : {};
  return layer.lines.map((text, i) =>
    filter('drawtext', {
      font: layer.font.family,
      ...weight,
      expansion: 'none',
      text,
      fontsize: layer.font.size,
      fontcolor: hex(layer.color),
      x: '(w-text_w)/2',
      ...entrance(layer, layer.y + i * layer.lineHeight),
    }),
  );
}

/** A caption over a dark box, centred, shown between its start and end (t is seconds into the scene). */
function drawCaption(layer: Extract<LayerNode, { kind: 'caption' }>): string[] {
  return layer.lines.map((text, i) =>
    filter('drawtext', {
      font: layer.font.family,
      expansion: 'none',
      text,
      fontsize: layer.font.size,
      fontcolor: hex(layer.color),
      box: 1,
      boxcolor: `${hex(layer.box)}@0.65`,
      boxborderw: Math.round(layer.font.size * 0.3),
      x: '(w-text_w)/2',
      y: layer.y + i * layer.lineHeight,
      enable: `between(t,${fmt(layer.start)},${fmt(layer.end)})`,
    }),
  );
}

/** Draws one scene; a clip's own sound goes to `audio`, or nowhere when there is none (a still). */
function sceneVideo(scene: SceneNode, graph: RenderGraph, inputs: Inputs, chains: string[], audio: string[] | undefined): string {
  const { width: W, height: H, fps } = graph.film;
  const D = scene.duration;
  const label = (s: string) => `[s${scene.index}${s}]`;
  const normalize = `${filter('fps', { fps })},format=yuv420p,setsar=1`;
  if (scene.background.kind === 'asset') {
    const { index } = inputs.add(scene.background.assetId, ['image', 'video'], 'a background', pictureInput(fps, D));
    chains.push(`[${index}:v]${fit('cover', W, H)},${normalize},${filter('trim', { duration: D })},setpts=PTS-STARTPTS${label('bg')}`);
  } else {
    chains.push(`${filter('color', { c: hex(scene.background.color), s: `${W}x${H}`, r: fps, d: D })},format=yuv420p${label('bg')}`);
  }
  let current = label('bg');
  const hasText = scene.layers.some((l) => l.kind === 'title' || l.kind === 'text');
  const texts: string[] = [];
  scene.layers.forEach((layer, j) => {
    if (layer.kind === 'caption') {
      texts.push(...drawCaption(layer));
      return;
    }
    if (layer.kind === 'clip') {
      current = sourceWindow(layer, scene, graph, inputs, { chains, audio, current, label: label(`p${j}`), out: label(`o${j}`), name: `v${scene.index}_${j}` });
      return;
    }
    if (layer.kind !== 'image' && layer.kind !== 'video') {
      texts.push(...drawText(layer));
      return;
    }
    const from = layer.kind === 'video' ? layer.from : 0;
    const { index, file } = inputs.add(layer.assetId, layer.kind === 'image' ? ['image'] : ['video'], `a ${layer.kind}`, pictureInput(fps, D, from));
    // With text in the frame, a contained picture keeps to the upper part, clear of the lower third.
    const mode = layer.kind === 'image' ? layer.fit : 'contain';
    const box = mode === 'cover' ? { w: W, h: H } : hasText ? { w: Math.round(W * 0.8), h: Math.round(H * 0.55) } : { w: Math.round(W * 0.9), h: Math.round(H * 0.9) };
    chains.push(`[${index}:v]${fit(mode, box.w, box.h)},${filter('fps', { fps })},setsar=1,setpts=PTS-STARTPTS${label(`p${j}`)}`);
    const y = hasText && mode === 'contain' ? `(${Math.round(H * 0.62)}-h)/2` : '(H-h)/2';
    chains.push(`${current}${label(`p${j}`)}${filter('overlay', { x: '(W-w)/2', y, eof_action: 'repeat' })}${label(`o${j}`)}`);
    current = label(`o${j}`);
    if (audio && layer.kind === 'video' && !layer.muted && file.kind === 'video') audio.push(audioChain(`${index}:a`, { assetId: layer.assetId, start: scene.start, duration: D, volume: 1, fadeIn: 0, fadeOut: 0 }, `v${scene.index}_${j}`, chains));
  });
  chains.push(`${current}${[...texts, filter('trim', { duration: D })].join(',')}${label('v')}`);
  return label('v');
}

/**
 * A source window over the frame: its picture scaled to fit the whole frame and overlaid (the
 * last frame holding when the window is shorter than the scene), its sound on the timeline
 * unless muted. Returns the label of the frame with it; a source without picture leaves the
 * frame as it was.
 */
function sourceWindow(
  layer: Extract<LayerNode, { kind: 'clip' }>,
  scene: SceneNode,
  graph: RenderGraph,
  inputs: Inputs,
  at: { chains: string[]; audio: string[] | undefined; current: string; label: string; out: string; name: string },
): string {
  const { width: W, height: H, fps } = graph.film;
  const { index, file } = inputs.addSource(layer.sourceId, layer.from, layer.duration);
  if (at.audio && !layer.muted && file.audio) at.audio.push(audioChain(`${index}:a`, { assetId: layer.sourceId, start: scene.start, duration: layer.duration, volume: 1, fadeIn: 0, fadeOut: 0 }, at.name, at.chains));
  if (!file.video) return at.current;
  at.chains.push(`[${index}:v]${fit('contain', W, H)},${filter('fps', { fps })},setsar=1,setpts=PTS-STARTPTS${at.label}`);
  at.chains.push(`${at.current}${at.label}${filter('overlay', { x: '(W-w)/2', y: '(H-h)/2', eof_action: 'repeat' })}${at.out}`);
  return at.out;
}

/** One audio source trimmed, levelled, faded and placed on the timeline; returns its label. */
function audioChain(source: string, a: AudioNode, name: string, chains: string[]): string {
  const parts = [filter('atrim', { duration: a.duration }), 'asetpts=PTS-STARTPTS', filter('volume', { volume: a.volume })];
  if (a.fadeIn > 0) parts.push(filter('afade', { t: 'in', st: 0, d: a.fadeIn }));
  if (a.fadeOut > 0) parts.push(filter('afade', { t: 'out', st: Math.max(0, a.duration - a.fadeOut), d: a.fadeOut }));
  const ms = Math.round(a.start * 1000);
  if (ms > 0) parts.push(filter('adelay', { delays: ms, all: 1 }));
  parts.push(filter('aformat', { sample_rates: SAMPLE_RATE, channel_layouts: 'stereo' }));
  chains.push(`[${source}]${parts.join(',')}[a${name}]`);
  return `[a${name}]`;
}

export interface FfmpegInvocation {
  /** Everything after `ffmpeg`, ready for spawn (no shell). */
  args: string[];
  /** The same in parts, for a command builder: inputs, the filter graph, the options of the output. */
  inputs: InputFile[];
  filterGraph: string;
  outputOptions: string[];
  output: string;
}

export function ffmpegArgs(
  graph: RenderGraph,
  opts: { assets: Readonly<Record<string, AssetFile>>; sources?: Readonly<Record<string, SourceFile>>; output: string; encode?: Partial<EncodeOptions> },
): FfmpegInvocation {
  const encode = { ...DEFAULT_ENCODE, ...opts.encode };
  const inputs = new Inputs(opts.assets, opts.sources ?? {});
  const chains: string[] = [];
  const audio: string[] = [];
  const total = graph.film.durationSeconds;

  const scenes = graph.scenes.map((s) => sceneVideo(s, graph, inputs, chains, audio));
  let video = scenes[0]!;
  for (let i = 1; i < scenes.length; i++) {
    const prev = graph.scenes[i - 1]!;
    const out = `[j${i}]`;
    chains.push(
      prev.transition
        ? `${video}${scenes[i]}${filter('xfade', { transition: prev.transition.kind, duration: prev.transition.duration, offset: graph.scenes[i]!.start })}${out}`
        : `${video}${scenes[i]}concat=n=2:v=1:a=0${out}`,
    );
    video = out;
  }

  graph.scenes.forEach((s) => s.audio.forEach((a, j) => audio.push(audioChain(`${inputs.add(a.assetId, ['audio', 'video'], 'audio', () => []).index}:a`, a, `s${s.index}_${j}`, chains))));
  graph.audio.forEach((a, j) => audio.push(audioChain(`${inputs.add(a.assetId, ['audio', 'video'], 'audio', () => []).index}:a`, a, `f${j}`, chains)));
  const pad = `${filter('apad', { whole_dur: total })},${filter('atrim', { duration: total })}[aout]`;
  if (audio.length === 0) chains.push(`${filter('anullsrc', { r: SAMPLE_RATE, cl: 'stereo' })},${pad}`);
  else chains.push(`${audio.join('')}${filter('amix', { inputs: audio.length, normalize: 0, duration: 'longest' })},${pad}`);

  const filterGraph = chains.join(';');
  // Global options (progress, threads) may stand among the output's: ffmpeg reads them anywhere.
  const outputOptions = [
    '-map', video, '-map', '[aout]',
    '-c:v', 'libx264', '-preset', encode.preset, '-crf', String(encode.crf), '-pix_fmt', 'yuv420p', '-r', String(graph.film.fps),
    '-c:a', 'aac', '-b:a', encode.audioBitrate, '-ar', String(SAMPLE_RATE),
    '-t', fmt(total), '-movflags', '+faststart',
    '-threads', String(encode.threads), '-filter_complex_threads', String(encode.threads),
    '-progress', 'pipe:1', '-nostats',
  ];
  return {
    inputs: inputs.list,
    filterGraph,
    outputOptions,
    output: opts.output,
    args: ['-hide_banner', '-nostdin', ...inputs.list.flatMap((i) => [...i.options, '-i', i.path]), '-filter_complex', filterGraph, ...outputOptions, '-y', opts.output],
  };
}

/** The scene on screen at `at` seconds: during a transition, the one coming in. */
export function sceneUnder(graph: RenderGraph, at: number): SceneNode {
  let found = graph.scenes[0]!;
  for (const s of graph.scenes) if (s.start <= at) found = s;
  return found;
}

export const STILL_FORMATS = ['png', 'jpeg'] as const;
export type StillFormat = (typeof STILL_FORMATS)[number];

/**
 * One frame of the film at `at` seconds, as a PNG or JPEG on stdout: the scene under that time drawn
 * alone (its background, pictures and text at its own time), without the transition's blend and
 * without sound, so a preview costs one scene's frames up to that point and no encode.
 */
export function stillArgs(
  graph: RenderGraph,
  opts: { assets: Readonly<Record<string, AssetFile>>; sources?: Readonly<Record<string, SourceFile>>; at: number; format: StillFormat },
): string[] {
  const scene = sceneUnder(graph, opts.at);
  const inputs = new Inputs(opts.assets, opts.sources ?? {});
  const chains: string[] = [];
  const video = sceneVideo({ ...scene, index: 0, start: 0, transition: null, audio: [] }, graph, inputs, chains, undefined);
  const offset = Math.min(Math.max(0, opts.at - scene.start), Math.max(0, scene.duration - 1 / graph.film.fps));
  return [
    '-hide_banner', '-nostdin', '-loglevel', 'error',
    ...inputs.list.flatMap((i) => [...i.options, '-i', i.path]),
    '-filter_complex', chains.join(';'),
    '-map', video, '-ss', fmt(offset), '-frames:v', '1',
    ...(opts.format === 'png' ? ['-c:v', 'png'] : ['-c:v', 'mjpeg', '-q:v', '3', '-pix_fmt', 'yuvj420p']),
    '-f', 'image2pipe', 'pipe:1',
  ];
}
