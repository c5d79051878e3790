import type { Position } from './diagnostics.js';
import type { StringPart } from './lexer.js';
import type { PaletteRole, TransitionKind } from './moods.js';

/** What the parser makes of a script: every value typed and placed, variables in text not yet filled. */

export type Text = { parts: StringPart[]; at: Position };

export type Fill = { kind: 'color'; color: string } | { kind: 'role'; role: PaletteRole } | { kind: 'asset'; assetId: string };

export interface AudioAst {
  at: Position;
  assetId: string;
  volume: number;
  fadeIn: number;
  fadeOut: number;
}

export type LayerAst =
  | { kind: 'title' | 'text'; at: Position; text: Text }
  | { kind: 'image'; at: Position; assetId: string; fit: 'cover' | 'contain' }
  | { kind: 'video'; at: Position; assetId: string; from: number; muted: boolean }
  /** A window of a long-form source: `to` missing, it lasts the scene. */
  | { kind: 'clip'; at: Position; sourceId: string; from: number; to?: { seconds: number; at: Position }; muted: boolean }
  /** Text shown from `from` to `to` seconds into the scene; `to` missing, to the scene's end. */
  | { kind: 'caption'; at: Position; text: Text; from: { seconds: number; at: Position }; to?: { seconds: number; at: Position } };

export interface SceneAst {
  at: Position;
  name: Text;
  /** Missing when the scene line has none (an error already reported). */
  seconds?: number;
  background?: { at: Position; fill: Fill };
  layers: LayerAst[];
  transition?: { at: Position; kind: TransitionKind; seconds?: number };
  audio: AudioAst[];
}

export interface FilmAst {
  title?: Text;
  mood?: { at: Position; name: string };
  aspect?: { at: Position; value: Aspect };
  resolution?: { at: Position; value: Resolution };
  fps?: { at: Position; value: number };
  audio: AudioAst[];
  scenes: SceneAst[];
  /** Every `{{name}}` of the script, once, in source order. */
  variables: Set<string>;
}

export const ASPECTS = ['16:9', '9:16', '1:1'] as const;
export type Aspect = (typeof ASPECTS)[number];
/** The frame's shorter side in pixels: 1080 is 1920x1080 at 16:9. */
export const RESOLUTIONS = [360, 480, 720, 1080, 1440, 2160] as const;
export type Resolution = (typeof RESOLUTIONS)[number];
export const FRAME_RATES = [24, 25, 30, 50, 60] as const;
