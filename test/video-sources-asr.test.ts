import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoService } from '../services/video.js';
import { sourceSchema } from '../schemas/http/video.js';
import { splitAtSilences, wordErrorRate } from '../domain/video/speech-segments.js';
import { parsePocketsphinx } from '../pipelines/video/pocketsphinx.js';
import { startTestProcess } from './support/process.js';
import { videoClient } from './fixtures/video-client.js';
import { SENTENCES, SPOKEN_AT, makeSourceMedia } from './fixtures/source-media.js';

/**
 * Speech recognition of a source without subtitles through Debian's pocketsphinx_continuous on
 * flite speech made here: the words of the spoken sentences, word error rate under 0.3, each
 * utterance near where it was spoken, the media split at a silence for two recognisers.
 */

let p: Awaited<ReturnType<typeof startTestProcess>>;
beforeAll(async () => {
  p = await startTestProcess({ services: [videoService], role: 'all', env: { API_KEYS: 'org_a:key_a', VIDEO_ASR: 'pocketsphinx' } });
});
afterAll(async () => {
  await p?.stop();
});

describe('speech recognition', () => {
  it('splits only inside silences, near even shares', () => {
    expect(splitAtSilences(10, [{ start: 4, end: 5 }, { start: 8, end: 8.5 }], 2)).toEqual([{ start: 0, end: 4.5 }, { start: 4.5, end: 10 }]);
    expect(splitAtSilences(10, [], 2)).toEqual([{ start: 0, end: 10 }]);
  });

  it('reads pocketsphinx output as chunks with word timings, markers and variants left out', () => {
    const out = 'hello world\n<s> 0.100 0.200 1.0\nhello 0.210 0.500 0.9\n<sil> 0.500 0.600 1.0\nworld(2) 0.610 0.900 0.8\n</s> 0.910 1.000 1.0\n';
    expect(parsePocketsphinx(out, 10)).toEqual([{ start: 10.21, end: 10.9, text: 'hello world', words: [{ start: 10.21, end: 10.5, word: 'hello' }, { start: 10.61, end: 10.9, word: 'world' }] }]);
    expect(wordErrorRate('the cat sat', 'the bat sat down')).toBeCloseTo(2 / 3);
  });

  it('recognises the spoken sentences of a source with no subtitles, WER under 0.3', async () => {
    const a = videoClient(p.url, 'key_a');
    const form = new FormData();
    form.append('file', new Blob([makeSourceMedia({ subtitleTrack: false })]), 'talk.mp4');
    const up = await fetch(`${p.url}/api/sources/upload`, { method: 'POST', headers: { 'x-api-key': 'key_a' }, body: form });
    const { id } = (await up.json()) as { id: string };
    expect((await a.call('POST', `/api/sources/${id}/preprocess`)).status).toBe(202);
    const until = Date.now() + 240_000;
    let source = sourceSchema.parse((await a.call('GET', `/api/sources/${id}`)).body);
    while (source.preprocess.status !== 'complete' && source.preprocess.status !== 'failed') {
      if (Date.now() > until) throw new Error(`still ${source.preprocess.status}`);
      await new Promise((r) => setTimeout(r, 500));
      source = sourceSchema.parse((await a.call('GET', `/api/sources/${id}`)).body);
    }
    expect(source.diagnostics).toEqual([expect.objectContaining({ level: 'info', code: 'transcript_recognised' })]);
    const heard = source.transcript.map((c) => c.text).join(' ');
    expect(wordErrorRate(SENTENCES.join(' '), heard)).toBeLessThan(0.3);
    // Each sentence is heard near where it was spoken, with word timings inside its chunk.
    expect(source.transcript).toHaveLength(SENTENCES.length);
    for (const [i, chunk] of source.transcript.entries()) {
      expect(Math.abs(chunk.start - SPOKEN_AT[i]!)).toBeLessThan(0.6);
      expect(chunk.words!.length).toBeGreaterThan(2);
      for (const w of chunk.words!) expect(w.start >= chunk.start && w.end <= chunk.end).toBe(true);
    }
  });
});
