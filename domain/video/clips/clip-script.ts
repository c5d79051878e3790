import type { Aspect } from '../ast.js';
import type { Sentence } from './sentences.js';
import { round3 } from './material.js';

/**
 * The script of a clip: one scene that plays the source's window, with each sentence said in the
 * window burnt in as a caption for as long as it is spoken. The result is ordinary script text
 * (docs/video-script.md): a user may edit it like any other.
 */

export interface ClipSpec {
  sourceId: string;
  /** The film's title. */
  name: string;
  start: number;
  end: number;
  sentences: readonly Sentence[];
  /** The frame shape nearest the source's picture (clipAspect). */
  aspect: Aspect;
}

/** The script's frame shape nearest a picture's: portrait footage makes a portrait clip; no picture, 16:9. */
export function clipAspect(width: number | null, height: number | null): Aspect {
  if (!width || !height) return '16:9';
  const r = width / height;
  return r < 0.8 ? '9:16' : r <= 1.25 ? '1:1' : '16:9';
}

/** Shortest caption worth drawing, seconds: a sliver at the window's edge is dropped. */
const MIN_CAPTION = 0.2;
export const CLIP_RESOLUTION = 720;

/** A script string literal of `text`: quotes, backslashes and braces escaped, line breaks as spaces. */
export function scriptString(text: string): string {
  return `"${text.replace(/[\r\n\t]+/g, ' ').replace(/[\\"{]/g, '\\$&')}"`;
}

const seconds = (t: number) => `${round3(t)}s`;

export function clipScript(c: ClipSpec): string {
  const length = round3(c.end - c.start);
  const captions = c.sentences.flatMap((s) => {
    const [from, to] = [Math.max(s.start, c.start) - c.start, Math.min(s.end, c.end) - c.start];
    return to - from >= MIN_CAPTION ? [`  caption ${scriptString(s.text)} at ${seconds(from)} to ${seconds(to)}`] : [];
  });
  return [
    `film ${scriptString(c.name)}`,
    `aspect ${c.aspect}`,
    `resolution ${CLIP_RESOLUTION}`,
    '',
    `scene "Clip" ${seconds(length)}`,
    `  video source:${c.sourceId} from ${seconds(c.start)} to ${seconds(c.end)}`,
    ...captions,
    '',
  ].join('\n');
}
