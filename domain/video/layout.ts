import type { Font } from './render-graph.js';

/** Average glyph advance as a fraction of the font size, a safe over-estimate for Latin sans and serif text. */
const ADVANCE = 0.55;
/** Share of the frame width text may use. */
const TEXT_WIDTH = 0.86;

export interface Wrapped {
  lines: string[];
  /** A single word wider than the frame. */
  overflows: boolean;
}

/** Greedy word wrap to the frame width; explicit `\n` in the text starts a new line. */
export function wrap(text: string, font: Font, frameWidth: number): Wrapped {
  const perLine = Math.max(1, Math.floor((frameWidth * TEXT_WIDTH) / (font.size * ADVANCE)));
  const lines: string[] = [];
  let overflows = false;
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (word.length > perLine) overflows = true;
      if (line && line.length + 1 + word.length > perLine) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return { lines, overflows };
}

/** Frame size for an aspect ratio and the length of the shorter side, both even (H.264 needs it). */
export function frameSize(aspect: '16:9' | '9:16' | '1:1', shortSide: number): { width: number; height: number } {
  const long = 2 * Math.round((shortSide * 16) / 9 / 2);
  if (aspect === '16:9') return { width: long, height: shortSide };
  if (aspect === '9:16') return { width: shortSide, height: long };
  return { width: shortSide, height: shortSide };
}

export const countWords = (text: string): number => text.split(/\s+/).filter(Boolean).length;
