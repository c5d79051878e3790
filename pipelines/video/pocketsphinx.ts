import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { TranscriptChunk, TranscriptWord } from '../../domain/video/source.js';
import type { SpeechRecogniser } from './ports.js';

/**
 * The speech recogniser on Debian's `pocketsphinx_continuous` (US English model of
 * pocketsphinx-en-us): ffmpeg decodes a segment to 16 kHz mono WAV on its standard output, the
 * recogniser reads it and prints each utterance, then (with `-time yes`) a `word start end
 * confidence` line per word, times from the segment's start. One process pair per segment, so
 * segments split at silences run on several cores.
 */

export const POCKETSPHINX = 'pocketsphinx_continuous';

/** Whether the recogniser's binary is on PATH. */
export function pocketsphinxInstalled(): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, POCKETSPHINX), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Utterances of pocketsphinx's output as chunks with word timings, shifted by `offset` seconds. */
export function parsePocketsphinx(output: string, offset: number): TranscriptChunk[] {
  const chunks: TranscriptChunk[] = [];
  let words: TranscriptWord[] = [];
  const flush = () => {
    if (words.length) chunks.push({ start: words[0]!.start, end: words.at(-1)!.end, text: words.map((w) => w.word).join(' '), words });
    words = [];
  };
  const at = (t: string) => Math.round((Number(t) + offset) * 1000) / 1000;
  for (const line of output.split('\n')) {
    const m = /^(\S+) (\d+\.\d+) (\d+\.\d+) (\d+\.\d+)$/.exec(line.trim());
    if (!m) continue;
    const token = m[1]!;
    if (token === '<s>') flush();
    // Markers of sentence bounds, silence and noise are no words; `word(2)` is a pronunciation variant.
    if (/^(<\/?s>|<sil>|\[.*\]|\+\+.*\+\+)$/.test(token)) continue;
    words.push({ start: at(m[2]!), end: at(m[3]!), word: token.replace(/\(\d+\)$/, '') });
  }
  flush();
  return chunks;
}

/**
 * The decoder and the recogniser joined by a bash pipe (pipefail: a failing decoder fails the segment): pocketsphinx opens /dev/stdin by name,
 * which must be a real pipe (Node's child stdio are sockets). The path and times are positional
 * parameters, never part of the command text.
 */
const PIPELINE = `ffmpeg -hide_banner -loglevel error -ss "$1" -t "$2" -i "$3" -vn -ac 1 -ar 16000 -f wav - | ${POCKETSPHINX} -infile /dev/stdin -time yes -logfn /dev/null`;

function recogniseSegment(file: string, segment: { start: number; end: number }): Promise<TranscriptChunk[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -o pipefail; ${PIPELINE}`, 'bash', String(segment.start), String(segment.end - segment.start), file], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(parsePocketsphinx(out, segment.start)) : reject(new Error(`${POCKETSPHINX} or its decoder exited with ${code}`))));
  });
}

export function pocketsphinxRecogniser(): SpeechRecogniser {
  return {
    name: 'pocketsphinx',
    async recognise(file, segments) {
      const parts = await Promise.all(segments.map((s) => recogniseSegment(file, s)));
      return parts.flat().sort((a, b) => a.start - b.start);
    },
  };
}
