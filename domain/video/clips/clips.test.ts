import { describe, expect, it } from 'vitest';
import { compile } from '../compile.js';
import { bm25Index } from './bm25.js';
import { clipCandidates } from './candidates.js';
import { clipAspect, clipScript, scriptString } from './clip-script.js';
import { clipMaterial, type ClipMaterial } from './material.js';
import { refineWindow } from './refine.js';
import { sentencesOf } from './sentences.js';
import { termsOf } from './terms.js';

/** A talk of 30 four-second sentences (3.5 s spoken, 0.5 s silent), cutting every 20 s; sentences 12 and 13 talk about volcanoes. */
function talk(): ClipMaterial {
  const transcript = Array.from({ length: 30 }, (_, i) => ({
    start: i * 4,
    end: i * 4 + 3.5,
    text: i === 12 ? 'Volcanoes erupt when pressure builds.' : i === 13 ? 'A volcano can sleep for centuries.' : `Sentence number ${i} is about the weather and gardens.`,
  }));
  const shots = [0, 20, 40, 60, 80, 100].map((start, index) => ({ index, start, end: start + 20, thumbnailId: `th_${index}` }));
  const silences = transcript.map((t) => ({ start: t.end, end: t.end + 0.5 }));
  return clipMaterial({ durationSeconds: 120, transcript, shots, silences });
}

describe('sentences', () => {
  it('takes a subtitle cue as one sentence, whitespace folded, empty cues dropped', () => {
    expect(sentencesOf([{ start: 1, end: 2, text: ' Hello\n  there ' }, { start: 3, end: 4, text: '  ' }, { start: 0, end: 0.5, text: 'First' }])).toEqual([
      { start: 0, end: 0.5, text: 'First' },
      { start: 1, end: 2, text: 'Hello there' },
    ]);
  });

  it("splits a recogniser's utterance after sentence punctuation and at pauses", () => {
    const w = (word: string, start: number, end: number) => ({ word, start, end });
    const words = [w('we', 0, 0.2), w('start.', 0.25, 0.6), w('then', 0.65, 0.9), w('pause', 0.95, 1.3), w('here', 2.0, 2.3), w('again', 2.35, 2.7)];
    expect(sentencesOf([{ start: 0, end: 2.7, text: 'we start then pause here again', words }])).toEqual([
      { start: 0, end: 0.6, text: 'we start.' },
      { start: 0.65, end: 1.3, text: 'then pause' },
      { start: 2.0, end: 2.7, text: 'here again' },
    ]);
  });

  it('splits a long run of words at its longest pause', () => {
    const words = Array.from({ length: 20 }, (_, i) => ({ word: `w${i}`, start: i + (i >= 7 ? 0.3 : 0), end: i + 0.9 + (i >= 7 ? 0.3 : 0) }));
    const out = sentencesOf([{ start: 0, end: 20.2, text: '', words }], { longest: 12, pause: 1 });
    expect(out[0]).toMatchObject({ start: 0, end: 6.9 });
    expect(out.every((s) => s.end - s.start <= 12)).toBe(true);
    expect(out.map((s) => s.text).join(' ')).toBe(words.map((x) => x.word).join(' '));
  });
});

describe('terms and BM25', () => {
  it('lower-cases, drops common words and folds plurals', () => {
    expect(termsOf("The volcanoes' ashes, and a city's stories!")).toEqual(['volcano', 'ash', 'city', 'story']);
    expect(termsOf('clips')).toEqual(termsOf('clip'));
  });

  it('scores a rare term above a common one and a document without the terms at zero', () => {
    const index = bm25Index([['rain', 'garden'], ['rain', 'lava'], ['rain'], ['sun']]);
    const [withRain, withBoth, , without] = index.score(['rain', 'lava']);
    expect(withBoth).toBeGreaterThan(withRain!);
    expect(without).toBe(0);
    expect(index.known(['lava', 'snow'])).toEqual(['lava']);
  });
});

describe('clip candidates', () => {
  it('finds windows of 15–60 s around the goal, best first, without heavy overlap', () => {
    const r = clipCandidates(talk(), 'volcanoes', { maxCandidates: 3 });
    expect(r.reason).toBeUndefined();
    expect(r.candidates.length).toBeGreaterThan(0);
    const best = r.candidates[0]!;
    expect(best.start).toBeLessThanOrEqual(48);
    expect(best.end).toBeGreaterThanOrEqual(55.5);
    expect(best.end - best.start).toBeGreaterThanOrEqual(15);
    expect(best.end - best.start).toBeLessThanOrEqual(60);
    expect(best.matched_terms).toEqual(['volcano']);
    expect(best.text).toContain('Volcanoes erupt');
    for (const c of r.candidates) {
      expect(c.text).toMatch(/volcano/i);
      for (const v of Object.values(c.score_parts)) expect(v).toBeGreaterThanOrEqual(0);
      for (const v of Object.values(c.score_parts)) expect(v).toBeLessThanOrEqual(1);
    }
    expect(r.candidates.map((c) => c.score)).toEqual([...r.candidates.map((c) => c.score)].sort((a, b) => b - a));
    for (const [i, a] of r.candidates.entries()) {
      for (const b of r.candidates.slice(i + 1)) {
        const shared = Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
        expect(shared).toBeLessThanOrEqual(0.3 * Math.min(a.end - a.start, b.end - b.start) + 1e-9);
      }
    }
  });

  it('rewards a window that opens with the goal and starts on a cut', () => {
    const r = clipCandidates(talk(), 'volcano', { maxCandidates: 10 });
    const opening = r.candidates.find((c) => c.score_parts.opening === 1);
    expect(opening).toBeDefined();
    expect(opening!.text.startsWith('Volcanoes') || opening!.text.startsWith('A volcano')).toBe(true);
    expect(r.candidates.every((c) => c.score_parts.boundary > 0)).toBe(true);
  });

  it('answers no candidates with a reason when the goal is not said', () => {
    expect(clipCandidates(talk(), 'submarines')).toEqual({ candidates: [], terms: ['submarine'], reason: 'no goal term (submarine) is said in the transcript' });
    expect(clipCandidates(talk(), 'the and of').reason).toMatch(/no words to search for/);
    expect(clipCandidates({ ...talk(), sentences: [] }, 'volcano').reason).toBe('the source has no transcript');
    const short = clipMaterial({ durationSeconds: 6, transcript: [{ start: 0, end: 3, text: 'a volcano' }], shots: [], silences: [] });
    expect(clipCandidates(short, 'volcano').reason).toMatch(/lasts 15–60 s/);
  });
});

describe('refine', () => {
  it('moves edges out to the sentences they cut into, then onto a cut within a second', () => {
    // 41.2 is inside sentence 10 (40–43.5), 59 inside sentence 14 (56–59.5); a cut at 40 and at 60.
    expect(refineWindow(talk(), { start: 41.2, end: 59 })).toEqual({ start: 40, end: 60, startsOn: 'cut', endsOn: 'cut' });
    // Sentence 12 starts at 48, a cut 0.6 s before it wins; the cut 1.3 s after sentence 14's end is too far.
    expect(refineWindow({ ...talk(), cuts: [47.4, 60.8] }, { start: 49, end: 58 })).toEqual({ start: 47.4, end: 59.75, startsOn: 'cut', endsOn: 'sentence' });
  });

  it('adds a margin where no cut is near, never into the neighbouring sentence', () => {
    // Sentence 6 is 24–27.5, sentence 8 is 32–35.5; the nearest cuts, 20 and 40, are more than a second away.
    expect(refineWindow(talk(), { start: 25, end: 33 })).toEqual({ start: 23.75, end: 35.75, startsOn: 'sentence', endsOn: 'sentence' });
    // A wide margin stops at the neighbours: sentence 5 ends at 23.5, sentence 9 starts at 36.
    expect(refineWindow(talk(), { start: 25, end: 33 }, { margin: 2 })).toMatchObject({ start: 23.5, end: 36 });
  });

  it('keeps a window over no speech as given', () => {
    const m = { ...talk(), sentences: [], cuts: [] };
    expect(refineWindow(m, { start: 5, end: 9 })).toEqual({ start: 5, end: 9, startsOn: 'as-given', endsOn: 'as-given' });
  });
});

describe('clip script', () => {
  it("plays the window and captions each sentence for the time it is said, relative to the clip", () => {
    const m = talk();
    const script = clipScript({ sourceId: 'src_0123', name: 'Say "hi" {{x}}', start: 48, end: 56, sentences: m.sentences, aspect: '16:9' });
    expect(script).toBe(
      [
        'film "Say \\"hi\\" \\{\\{x}}"',
        'aspect 16:9',
        'resolution 720',
        '',
        'scene "Clip" 8s',
        '  video source:src_0123 from 48s to 56s',
        '  caption "Volcanoes erupt when pressure builds." at 0s to 3.5s',
        '  caption "A volcano can sleep for centuries." at 4s to 7.5s',
        '',
      ].join('\n'),
    );
    expect(scriptString('a\\b\nc')).toBe('"a\\\\b c"');
    const compiled = compile(script);
    expect(compiled.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
    expect(compiled.ok && compiled.renderGraph.film.title).toBe('Say "hi" {{x}}');
    expect(compiled.ok && compiled.renderGraph.sources).toEqual(['src_0123']);
  });

  it('takes the frame shape nearest the footage', () => {
    expect([clipAspect(1920, 1080), clipAspect(1080, 1920), clipAspect(720, 720), clipAspect(null, null), clipAspect(320, 180)]).toEqual(['16:9', '9:16', '1:1', '16:9', '16:9']);
  });
});
