import type { Aspect } from './ast.js';
import type { BuiltInMood, FontFamily, Palette, TextEntrance, TransitionKind } from './moods.js';
import type { ThemeName } from './themes.js';

/**
 * The compiler's output and the renderer's input: every value resolved (mood, theme, variables,
 * timings in seconds on the film's timeline, pixel sizes), so a renderer decides nothing.
 */
export interface RenderGraph {
  version: '1';
  film: {
    title: string;
    /** The built-in mood the film renders with. */
    mood: BuiltInMood;
    /** The name the script used, when it was an alias. */
    moodAlias?: string;
    theme?: ThemeName;
    aspect: Aspect;
    width: number;
    height: number;
    fps: number;
    /** Scene durations minus the overlaps of transitions. */
    durationSeconds: number;
    /** A preview renders small and at a low frame rate. */
    preview: boolean;
  };
  style: { palette: Palette };
  scenes: SceneNode[];
  /** Beds under the whole film. */
  audio: AudioNode[];
  /** Every asset the film references, once, in order of first use. */
  assets: string[];
  /** Every template variable the script names, once, in order of first use. */
  variables: string[];
  /** Every long-form source the film cuts, once, in order of first use; absent when it cuts none. */
  sources?: string[];
}

export interface SceneNode {
  index: number;
  name: string;
  line: number;
  /** Seconds from the start of the film. */
  start: number;
  duration: number;
  background: { kind: 'color'; color: string } | { kind: 'asset'; assetId: string; color: string };
  layers: LayerNode[];
  /** Into the next scene; null for the last scene and for cuts. */
  transition: { kind: Exclude<TransitionKind, 'cut'>; duration: number } | null;
  audio: AudioNode[];
}

export interface Font {
  family: FontFamily;
  weight: 'regular' | 'bold';
  /** Pixels. */
  size: number;
}

export type LayerNode =
  | {
      kind: 'title' | 'text';
      line: number;
      /** Wrapped to the frame width. */
      lines: string[];
      font: Font;
      color: string;
      /** Pixels from the top of the frame to the top of the first line; centred horizontally. */
      y: number;
      lineHeight: number;
      /** Seconds from the start of the scene. */
      enter: { kind: TextEntrance; at: number; duration: number };
    }
  | { kind: 'image'; line: number; assetId: string; fit: 'cover' | 'contain' }
  | { kind: 'video'; line: number; assetId: string; from: number; muted: boolean }
  /** `duration` seconds of a source from `from` (seconds into the source), filling the frame; shorter than the scene, its last frame holds. */
  | { kind: 'clip'; line: number; sourceId: string; from: number; duration: number; muted: boolean }
  /** Text over a dark box near the bottom of the frame, shown from `start` to `end` seconds into the scene. */
  | { kind: 'caption'; line: number; lines: string[]; font: Font; color: string; box: string; y: number; lineHeight: number; start: number; end: number };

export interface AudioNode {
  assetId: string;
  /** Seconds from the start of the film. */
  start: number;
  duration: number;
  volume: number;
  fadeIn: number;
  fadeOut: number;
}
