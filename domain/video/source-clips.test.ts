import { describe, expect, it } from 'vitest';
import { compile } from './compile.js';
import { MissingAssetError, ffmpegArgs } from './ffmpeg-args.js';

/** The script's long-form source windows (`video source:<id> from … to …`) and timed captions, compiled and turned into ffmpeg arguments. */

const clipFilm = [
  'film "Clip"',
  'resolution 360',
  'scene "Clip" 8s',
  '  video source:src_abc from 12.5s to 20.5s',
  '  caption "First, said" at 0.5s to 3s',
  '  caption "then this" at 4s',
].join('\n');

const errorsOf = (source: string) => {
  const r = compile(source);
  return r.diagnostics.filter((d) => d.level === 'error').map((d) => ({ code: d.code, line: d.line, column: d.column }));
};
const warningsOf = (source: string) => compile(source).diagnostics.filter((d) => d.level === 'warning').map((d) => d.code);

describe('source windows and captions in the script', () => {
  it('compiles a window of a source and timed captions into the graph', () => {
    const r = compile(clipFilm);
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    const g = r.renderGraph;
    expect(g.sources).toEqual(['src_abc']);
    expect(g.assets).toEqual([]);
    expect(g.film.durationSeconds).toBe(8);
    const [clip, first, second] = g.scenes[0]!.layers;
    expect(clip).toEqual({ kind: 'clip', line: 4, sourceId: 'src_abc', from: 12.5, duration: 8, muted: false });
    expect(first).toMatchObject({ kind: 'caption', line: 5, lines: ['First, said'], start: 0.5, end: 3, color: '#FFFFFF', box: '#000000' });
    // Without `to`, a caption lasts to the end of its scene.
    expect(second).toMatchObject({ kind: 'caption', start: 4, end: 8 });
    expect((first as { y: number }).y).toBeGreaterThan(g.film.height / 2);
    expect(r.diagnostics.filter((d) => d.code !== 'untitled')).toEqual([]);
  });

  it('has no sources field for a film that cuts none', () => {
    const r = compile('film "x"\nscene "a" 3s\n  text "hi"');
    expect(r.ok && 'sources' in r.renderGraph).toBe(false);
  });

  it('reports bad windows and captions where they are', () => {
    expect(errorsOf('film "x"\nscene "a" 3s\n  video source:src_1 from 10s to 5s')).toEqual([{ code: 'out-of-range', line: 3, column: 34 }]);
    expect(errorsOf('film "x"\nscene "a" 3s\n  video source:bad/id')).toEqual([{ code: 'bad-source', line: 3, column: 9 }]);
    // `to` belongs to sources: for an asset it and its value are options the directive does not have.
    expect(errorsOf('film "x"\nscene "a" 3s\n  video asset:a to 3s')).toEqual([
      { code: 'bad-option', line: 3, column: 17 },
      { code: 'bad-option', line: 3, column: 20 },
    ]);
    expect(errorsOf('film "x"\nscene "a" 3s\n  caption "hi"')).toEqual([{ code: 'missing-argument', line: 3, column: 3 }]);
    expect(errorsOf('film "x"\nscene "a" 3s\n  caption "hi" at 5s')).toEqual([{ code: 'out-of-range', line: 3, column: 19 }]);
    expect(errorsOf('film "x"\nscene "a" 3s\n  caption "hi" at 2s to 1s')).toEqual([{ code: 'out-of-range', line: 3, column: 25 }]);
    expect(errorsOf('film "x"\nscene "a" 3s\n  caption hi at 1s')).toEqual([{ code: 'bad-argument', line: 3, column: 11 }]);
  });

  it('warns when a window and its scene differ in length, or a caption outlasts its scene', () => {
    expect(warningsOf('film "x"\nscene "a" 3s\n  video source:s from 1s to 2s')).toEqual(['clip-shorter-than-scene']);
    expect(warningsOf('film "x"\nscene "a" 3s\n  video source:s from 1s to 9s')).toEqual(['clip-longer-than-scene']);
    expect(warningsOf('film "x"\nscene "a" 3s\n  video source:s\n  caption "x" at 1s to 4s')).toEqual(['caption-past-scene']);
  });
});

describe('ffmpeg arguments of a source window', () => {
  const r = compile(clipFilm);
  const graph = r.ok ? r.renderGraph : (undefined as never);

  it('seeks the source to the window, overlays its picture, keeps its sound and burns the captions in for their time', () => {
    const inv = ffmpegArgs(graph, { assets: {}, sources: { src_abc: { path: '/m/src.mp4', video: true, audio: true } }, output: '/o.mp4' });
    expect(inv.inputs).toEqual([{ path: '/m/src.mp4', options: ['-ss', '12.5', '-t', '8'] }]);
    expect(inv.filterGraph).toContain('[0:v]scale=');
    expect(inv.filterGraph).toContain("[s0bg][s0p0]overlay=x=\\'(W-w)/2\\':y=\\'(H-h)/2\\':eof_action=\\'repeat\\'[s0o0]");
    expect(inv.filterGraph).toContain("[0:a]atrim=duration=8");
    expect(inv.filterGraph).toContain(String.raw`text=\'First\, said\'`);
    expect(inv.filterGraph).toContain(String.raw`enable=\'between(t\,0.5\,3)\'`);
    expect(inv.filterGraph).toContain(String.raw`enable=\'between(t\,4\,8)\'`);
    expect(inv.filterGraph).toContain('box=1');
  });

  it('plays only the sound of a source without picture, nothing of a muted one, and names a source it was not given', () => {
    const audioOnly = ffmpegArgs(graph, { assets: {}, sources: { src_abc: { path: '/m/a.wav', video: false, audio: true } }, output: '/o.mp4' });
    expect(audioOnly.filterGraph).not.toContain('[0:v]');
    expect(audioOnly.filterGraph).toContain('[0:a]');
    const m = compile(clipFilm.replace('to 20.5s', 'to 20.5s mute'));
    const muted = ffmpegArgs(m.ok ? m.renderGraph : (undefined as never), { assets: {}, sources: { src_abc: { path: '/m/src.mp4', video: true, audio: true } }, output: '/o.mp4' });
    expect(muted.filterGraph).not.toContain('[0:a]');
    expect(() => ffmpegArgs(graph, { assets: {}, output: '/o.mp4' })).toThrow(new MissingAssetError('src_abc', 'a clip', 'source'));
    expect(() => ffmpegArgs(graph, { assets: {}, output: '/o.mp4' })).toThrow(/^source src_abc is needed as a clip/);
  });
});
