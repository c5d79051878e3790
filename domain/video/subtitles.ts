import type { TranscriptChunk } from './source.js';

/**
 * Cues of an SRT or WebVTT file as transcript chunks, in order of their start: the timing line
 * `hh:mm:ss,mmm --> hh:mm:ss,mmm` (or `.`, hours optional in WebVTT), the text the lines after it
 * up to a blank line, markup tags removed and lines joined by a space.
 */

const TIMING = /^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})/;

function seconds(stamp: string): number {
  const parts = stamp.replace(',', '.').split(':').map(Number);
  return parts.reduce((acc, p) => acc * 60 + p, 0);
}

export function parseSubtitles(text: string): TranscriptChunk[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const chunks: TranscriptChunk[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = TIMING.exec(lines[i]!);
    if (!m) continue;
    const body: string[] = [];
    while (i + 1 < lines.length && lines[i + 1]!.trim() !== '') body.push(lines[++i]!.replace(/<[^>]*>/g, '').trim());
    const cue = body.join(' ').replace(/\s+/g, ' ').trim();
    if (cue) chunks.push({ start: Math.round(seconds(m[1]!) * 1000) / 1000, end: Math.round(seconds(m[2]!) * 1000) / 1000, text: cue });
  }
  return chunks.sort((a, b) => a.start - b.start);
}
