import type { TranscriptChunk } from '../source.js';

/**
 * Sentences of a transcript, the units a clip is cut along. A subtitle cue is a sentence: its
 * author already cut it where speech allows. A recogniser's chunk (one with word timings) is an
 * utterance that may hold several sentences, so it is split after a word that ends in sentence
 * punctuation or before a pause of at least `pause` seconds; a piece longer than `longest`
 * seconds is split again at its longest pause, so no sentence is too long to start or end a clip.
 */

export interface Sentence {
  start: number;
  end: number;
  text: string;
}

export interface SentenceOptions {
  /** A silence between two words at least this long ends a sentence. */
  pause: number;
  /** A sentence longer than this is split at its longest pause. */
  longest: number;
}

export const SENTENCE_DEFAULTS: SentenceOptions = { pause: 0.45, longest: 12 };

type Word = NonNullable<TranscriptChunk['words']>[number];

const ENDS_SENTENCE = /[.!?…]["')\]]*$/;

const sentenceOf = (words: Word[]): Sentence => ({ start: words[0]!.start, end: words.at(-1)!.end, text: words.map((w) => w.word).join(' ') });

/** Splits a run of words at its longest pause until every piece lasts at most `longest`. */
function splitLong(words: Word[], longest: number): Word[][] {
  if (words.length < 2 || words.at(-1)!.end - words[0]!.start <= longest) return [words];
  let at = 1;
  for (let i = 2; i < words.length; i++) if (words[i]!.start - words[i - 1]!.end > words[at]!.start - words[at - 1]!.end) at = i;
  return [...splitLong(words.slice(0, at), longest), ...splitLong(words.slice(at), longest)];
}

function splitWords(words: Word[], o: SentenceOptions): Sentence[] {
  const runs: Word[][] = [];
  let run: Word[] = [];
  for (const [i, w] of words.entries()) {
    const prev = words[i - 1];
    if (prev && run.length > 0 && (ENDS_SENTENCE.test(prev.word) || w.start - prev.end >= o.pause)) {
      runs.push(run);
      run = [];
    }
    run.push(w);
  }
  if (run.length > 0) runs.push(run);
  return runs.flatMap((r) => splitLong(r, o.longest)).map(sentenceOf);
}

export function sentencesOf(chunks: readonly TranscriptChunk[], options: Partial<SentenceOptions> = {}): Sentence[] {
  const o = { ...SENTENCE_DEFAULTS, ...options };
  const out = chunks.flatMap((c) => {
    const words = (c.words ?? []).filter((w) => w.word.trim() !== '' && w.end >= w.start);
    if (words.length > 0) return splitWords(words, o);
    const text = c.text.replace(/\s+/g, ' ').trim();
    return text && c.end > c.start ? [{ start: c.start, end: c.end, text }] : [];
  });
  return out.sort((a, b) => a.start - b.start);
}
