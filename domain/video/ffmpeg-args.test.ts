import { describe, expect, it } from 'vitest';
import { compile } from './compile.js';
import { MissingAssetError, escapeForGraph, ffmpegArgs, quoteOption, type AssetFile } from './ffmpeg-args.js';
import type { RenderGraph } from './render-graph.js';

const graphOf = (source: string): RenderGraph => {
  const r = compile(source);
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  return r.renderGraph;
};

const assets: Record<string, AssetFile> = {
  logo: { path: '/data/assets/logo.png', kind: 'image' },
  sky: { path: '/data/assets/sky.mp4', kind: 'video' },
  bed: { path: '/data/assets/bed.mp3', kind: 'audio' },
};

const film = [
  'film "T"',
  'mood confident',
  'resolution 360',
  'audio asset:bed volume 0.5 fade 1s',
  'scene "a" 2s',
  '  title "Hello"',
  '  image asset:logo',
  '  transition fade 0.5s',
  'scene "b" 2s',
  '  background asset:sky',
  '  text "Two"',
  '  transition cut',
  'scene "c" 1.5s',
  '  background #102030',
].join('\n');

describe('ffmpeg arguments', () => {
  const { args, filterGraph } = ffmpegArgs(graphOf(film), { assets, output: '/out/film.mp4' });
  const chains = filterGraph.split(';');

  it('adds each asset as an input in order of use: stills looped for their scene, clips cut to it', () => {
    expect(args.slice(0, args.indexOf('-filter_complex'))).toEqual([
      '-hide_banner', '-nostdin',
      '-loop', '1', '-framerate', '30', '-t', '2', '-i', '/data/assets/logo.png',
      '-t', '2', '-i', '/data/assets/sky.mp4',
      '-i', '/data/assets/bed.mp3',
    ]);
  });

  it('draws colour backgrounds with the color source and covers the frame with asset backgrounds', () => {
    expect(chains[0]).toBe("color=c=\\'0x0B1F3A\\':s=\\'640x360\\':r=30:d=2,format=yuv420p[s0bg]");
    expect(chains).toContain(
      "[1:v]scale=w=640:h=360:force_original_aspect_ratio=\\'increase\\',crop=w=640:h=360,fps=fps=30,format=yuv420p,setsar=1,trim=duration=2,setpts=PTS-STARTPTS[s1bg]",
    );
  });

  it('overlays a picture above the lower third when text shares the frame', () => {
    expect(chains).toContain("[s0bg][s0p1]overlay=x=\\'(W-w)/2\\':y=\\'(223-h)/2\\':eof_action=\\'repeat\\'[s0o1]");
  });

  it('draws text with drawtext by fontconfig family and weight, centred, entering as the mood says', () => {
    const title = chains.find((c) => c.startsWith('[s0o1]'))!;
    expect(title).toContain("drawtext=font=\\'DejaVu Sans\\':fontfile=\\':style=Bold\\':expansion=\\'none\\':text=\\'Hello\\':fontsize=32:fontcolor=\\'0xFFFFFF\\':x=\\'(w-text_w)/2\\'");
    expect(title).toContain("alpha=\\'min(1\\,max(0\\,(t-0)/0.4))\\'");
    expect(title.endsWith(',trim=duration=2[s0v]')).toBe(true);
  });

  it('joins scenes with xfade at the next scene start, and with concat for a cut', () => {
    expect(chains).toContain("[s0v][s1v]xfade=transition=\\'fade\\':duration=0.5:offset=1.5[j1]");
    expect(chains).toContain('[j1][s2v]concat=n=2:v=1:a=0[j2]');
    expect(args[args.indexOf('-map') + 1]).toBe('[j2]');
  });

  it('mixes audio beds with volume and fades, padded to the film, and encodes H.264 + AAC with faststart', () => {
    expect(chains).toContain(
      "[2:a]atrim=duration=5,asetpts=PTS-STARTPTS,volume=volume=0.5,afade=t=\\'in\\':st=0:d=1,afade=t=\\'out\\':st=4:d=1,aformat=sample_rates=48000:channel_layouts=\\'stereo\\'[af0]",
    );
    expect(chains.at(-1)).toBe("[af0]amix=inputs=1:normalize=0:duration=\\'longest\\',apad=whole_dur=5,atrim=duration=5[aout]");
    expect(args.slice(args.indexOf('-c:v'))).toEqual([
      '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', '-r', '30',
      '-c:a', 'aac', '-b:a', '192k', '-ar', '48000', '-t', '5', '-movflags', '+faststart',
      '-threads', '0', '-filter_complex_threads', '0', '-progress', 'pipe:1', '-nostats', '-y', '/out/film.mp4',
    ]);
  });

  it('gives a film without audio a silent AAC track', () => {
    const silent = ffmpegArgs(graphOf('film "T"\nscene "a" 2s\n  text "x"'), { assets: {}, output: 'o.mp4' });
    expect(silent.filterGraph.split(';').at(-1)).toBe("anullsrc=r=48000:cl=\\'stereo\\',apad=whole_dur=2,atrim=duration=2[aout]");
  });

  it('escapes text at both levels: the option quote and the filter graph', () => {
    expect(quoteOption("it's: 100%")).toBe("'it'\\''s: 100%'");
    expect(escapeForGraph("a='x, [y]; \\'")).toBe("a=\\'x\\, \\[y\\]\\; \\\\\\'");
  });

  it('refuses an asset that is missing or of the wrong kind', () => {
    expect(() => ffmpegArgs(graphOf(film), { assets: { ...assets, logo: { path: '/x.mp3', kind: 'audio' } }, output: 'o.mp4' })).toThrow(MissingAssetError);
    expect(() => ffmpegArgs(graphOf(film), { assets: { logo: assets.logo! }, output: 'o.mp4' })).toThrow('asset sky is needed as a background');
  });
});
