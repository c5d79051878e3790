import type { ArgReader } from './args.js';
import { ASPECTS, FRAME_RATES, RESOLUTIONS, type AudioAst, type FilmAst, type Fill, type SceneAst } from './ast.js';
import type { Diagnostics, Position } from './diagnostics.js';
import { excerpt, hint } from './diagnostics.js';
import { PALETTE_ROLES, TRANSITION_KINDS, moodNames, resolveMood, type PaletteRole } from './moods.js';

/** Longest scene, and longest transition or fade, the compiler accepts. */
export const MAX_SCENE_SECONDS = 600;
export const MAX_FADE_SECONDS = 10;

interface Target {
  film: FilmAst;
  /** The scene being read; undefined before the first `scene`. */
  scene?: SceneAst;
  diags: Diagnostics;
}

/** One directive of the language: where it may stand, how it reads, what it sets. */
export interface DirectiveSpec {
  scope: 'film' | 'scene' | 'both';
  usage: string;
  apply(args: ArgReader, target: Target): void;
}

/** Reports a second use of a directive that may appear once; the last one counts. */
function once(set: unknown, args: ArgReader, diags: Diagnostics, where: string): void {
  if (set !== undefined) diags.warn(args.at, 'repeated-directive', `${args.name} is given twice ${where}; the last one counts`);
}

function audio(args: ArgReader, diags: Diagnostics): AudioAst | undefined {
  const a = args.asset();
  const out = { volume: 1, fadeIn: 0, fadeOut: 0 };
  args.options(['volume', 'fade', 'fadein', 'fadeout'], (key, r) => {
    if (key === 'volume') out.volume = r.number('a volume from 0 to 2', 0, 2) ?? out.volume;
    else {
      const d = r.duration('a fade duration such as 1s');
      if (d && d.seconds > MAX_FADE_SECONDS) diags.error(d.at, 'out-of-range', `a fade lasts at most ${MAX_FADE_SECONDS}s`);
      const s = d && d.seconds <= MAX_FADE_SECONDS ? d.seconds : 0;
      if (key !== 'fadeout') out.fadeIn = s;
      if (key !== 'fadein') out.fadeOut = s;
    }
  });
  return a ? { at: args.at, assetId: a.assetId, ...out } : undefined;
}

function fill(args: ArgReader, diags: Diagnostics): Fill | undefined {
  const what = 'a colour #rrggbb, a palette colour or asset:<id>';
  const t = args.any(what);
  if (!t) return undefined;
  if (t.kind === 'color') return { kind: 'color', color: t.value };
  if (t.kind === 'asset') return { kind: 'asset', assetId: t.id };
  if (t.kind === 'word' && (PALETTE_ROLES as readonly string[]).includes(t.value)) return { kind: 'role', role: t.value as PaletteRole };
  diags.error(t, 'bad-argument', () => `background needs ${what} (${PALETTE_ROLES.join(', ')})${t.kind === 'word' ? hint(t.value, PALETTE_ROLES) : ''}`);
  return undefined;
}

/** A film setting chosen from a fixed list, given at most once. */
function filmChoice<K extends 'aspect' | 'resolution' | 'fps'>(key: K, what: string, allowed: readonly NonNullable<FilmAst[K]>['value'][]): DirectiveSpec {
  return {
    scope: 'film',
    usage: `${key} ${allowed.join(' | ')}`,
    apply(args, { film, diags }) {
      once(film[key], args, diags, 'for the film');
      const chosen = args.oneOf(what, allowed);
      if (chosen) film[key] = chosen as FilmAst[K];
      args.done();
    },
  };
}

/** The language's directives; a new directive is a new entry here and a section in docs/video-script.md. */
export const DIRECTIVES: Readonly<Record<string, DirectiveSpec>> = {
  film: {
    scope: 'film',
    usage: 'film "<title>"',
    apply(args, { film, diags }) {
      once(film.title, args, diags, 'for the film');
      film.title = args.text() ?? film.title;
      args.done();
    },
  },
  mood: {
    scope: 'film',
    usage: 'mood <built-in or alias>',
    apply(args, { film, diags }) {
      once(film.mood, args, diags, 'for the film');
      const t = args.any('a mood name such as confident');
      args.done();
      if (!t) return;
      const name = t.kind === 'word' ? t.value : t.kind === 'string' && t.parts.length === 1 && 'text' in t.parts[0]! ? t.parts[0].text : undefined;
      if (name === undefined || !resolveMood(name)) {
        const shown = name === undefined ? 'that' : excerpt(name);
        diags.error(t, 'unknown-mood', () => `${shown} is not a mood; use a built-in (confident, playful, dramatic, elegant, calm, urgent, precision) or an alias${name ? hint(name, moodNames()) : ''}`);
        return;
      }
      film.mood = { at: t, name };
    },
  },
  aspect: filmChoice('aspect', 'an aspect ratio', ASPECTS),
  resolution: filmChoice('resolution', "the frame's shorter side in pixels", RESOLUTIONS),
  fps: filmChoice('fps', 'a frame rate', FRAME_RATES),
  scene: {
    scope: 'film',
    usage: 'scene "<name>" <duration>',
    apply(args, { film, diags }) {
      const name = args.text('a scene name in double quotes') ?? { parts: [{ text: `Scene ${film.scenes.length + 1}` }], at: args.at };
      const scene: SceneAst = { at: args.at, name, layers: [], audio: [] };
      film.scenes.push(scene);
      if (!args.more) {
        if (!args.damaged) diags.error(args.at, 'missing-duration', 'scene needs a duration after its name, such as 3s');
        return;
      }
      const d = args.duration('a duration such as 3s');
      args.done();
      if (!d) return;
      if (d.seconds <= 0 || d.seconds > MAX_SCENE_SECONDS) diags.error(d.at, 'out-of-range', `a scene lasts more than 0s and at most ${MAX_SCENE_SECONDS}s`);
      else scene.seconds = d.seconds;
    },
  },
  background: {
    scope: 'scene',
    usage: 'background #rrggbb | <palette colour> | asset:<id>',
    apply(args, { scene, diags }) {
      once(scene!.background, args, diags, 'in this scene');
      const f = fill(args, diags);
      args.done();
      if (f) scene!.background = { at: args.at, fill: f };
    },
  },
  title: {
    scope: 'scene',
    usage: 'title "<text>"',
    apply(args, { scene, diags }) {
      if (scene!.layers.some((l) => l.kind === 'title')) diags.warn(args.at, 'repeated-directive', 'this scene already has a title; both are drawn, one above the other');
      const text = args.text();
      args.done();
      if (text) scene!.layers.push({ kind: 'title', at: args.at, text });
    },
  },
  text: {
    scope: 'scene',
    usage: 'text "<text>"',
    apply(args, { scene }) {
      const text = args.text();
      args.done();
      if (text) scene!.layers.push({ kind: 'text', at: args.at, text });
    },
  },
  image: {
    scope: 'scene',
    usage: 'image asset:<id> [fit cover|contain]',
    apply(args, { scene }) {
      const a = args.asset();
      let fit: 'cover' | 'contain' = 'contain';
      args.options(['fit'], (_k, r) => (fit = r.oneOf('cover or contain', ['cover', 'contain'] as const)?.value ?? fit));
      if (a) scene!.layers.push({ kind: 'image', at: args.at, assetId: a.assetId, fit });
    },
  },
  video: {
    scope: 'scene',
    usage: 'video asset:<id> [from <duration>] [mute] | video source:<id> [from <duration>] [to <duration>] [mute]',
    apply(args, { scene, diags }) {
      const m = args.media('an asset asset:<id> or a source source:<id>');
      let from = 0;
      let to: { seconds: number; at: Position } | undefined;
      let muted = false;
      // `to` names a moment of a long-form source; an asset clip lasts its scene.
      args.options(m?.kind === 'source' ? ['from', 'to', 'mute'] : ['from', 'mute'], (key, r) => {
        if (key === 'mute') muted = true;
        else if (key === 'from') from = r.duration('a start offset such as 2s')?.seconds ?? from;
        else to = r.duration('an end such as 40s') ?? to;
      });
      if (to && to.seconds <= from) {
        diags.error(to.at, 'out-of-range', `to ${to.seconds}s must come after from ${from}s`);
        to = undefined;
      }
      if (m?.kind === 'asset') scene!.layers.push({ kind: 'video', at: args.at, assetId: m.id, from, muted });
      else if (m) scene!.layers.push({ kind: 'clip', at: args.at, sourceId: m.id, from, ...(to ? { to } : {}), muted });
    },
  },
  caption: {
    scope: 'scene',
    usage: 'caption "<text>" at <duration> [to <duration>]',
    apply(args, { scene, diags }) {
      const text = args.text();
      let from: { seconds: number; at: Position } | undefined;
      let to: { seconds: number; at: Position } | undefined;
      args.options(['at', 'to'], (key, r) => {
        const d = r.duration(key === 'at' ? 'when the caption appears, such as 1.2s' : 'when it goes, such as 3.4s');
        if (key === 'at') from = d ?? from;
        else to = d ?? to;
      });
      if (!from) {
        if (!args.damaged) diags.error(args.at, 'missing-argument', 'caption needs at <duration>: when it appears, seconds into the scene');
        return;
      }
      if (to && to.seconds <= from.seconds) {
        diags.error(to.at, 'out-of-range', `to ${to.seconds}s must come after at ${from.seconds}s`);
        return;
      }
      if (text) scene!.layers.push({ kind: 'caption', at: args.at, text, from, ...(to ? { to } : {}) });
    },
  },
  transition: {
    scope: 'scene',
    usage: `transition <${TRANSITION_KINDS.join(' | ')}> [duration]`,
    apply(args, { scene, diags }) {
      once(scene!.transition, args, diags, 'in this scene');
      const kind = args.oneOf('a transition', TRANSITION_KINDS);
      const d = args.more ? args.duration('a duration such as 0.5s') : undefined;
      args.done();
      if (d && (d.seconds > MAX_FADE_SECONDS || (d.seconds === 0 && kind?.value !== 'cut'))) {
        diags.error(d.at, 'out-of-range', `a transition lasts more than 0s and at most ${MAX_FADE_SECONDS}s; use transition cut for none`);
        return;
      }
      if (kind) scene!.transition = { at: args.at, kind: kind.value, seconds: kind.value === 'cut' ? 0 : d?.seconds };
    },
  },
  audio: {
    scope: 'both',
    usage: 'audio asset:<id> [volume <0..2>] [fade <d>] [fadein <d>] [fadeout <d>]',
    apply(args, { film, scene, diags }) {
      const a = audio(args, diags);
      if (a) (scene ? scene.audio : film.audio).push(a);
    },
  },
};
