import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile, type CompileOptions } from './compile.js';
import { MAX_DIAGNOSTICS, type Diagnostic } from './diagnostics.js';
import type { RenderGraph } from './render-graph.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

function graphOf(source: string, options?: CompileOptions): RenderGraph {
  const r = compile(source, options);
  if (!r.ok) throw new Error(`expected a render graph, got ${JSON.stringify(r.diagnostics)}`);
  return r.renderGraph;
}

/** Diagnostics reduced to what the tests compare: level, code, line, column. */
const brief = (ds: Diagnostic[]) => ds.map((d) => `${d.level} ${d.code} ${d.line}:${d.column}`);
const diagnosticsOf = (source: string, options?: CompileOptions) => brief(compile(source, options).diagnostics);

/** A valid film around the given scene lines. */
const oneScene = (...body: string[]) => ['film "T"', 'scene "S" 4s', ...body.map((l) => `  ${l}`)].join('\n');

describe('golden render graphs', () => {
  it('compiles the contract example', async () => {
    const r = compile(fixture('launch.script'), { variables: { product: 'Weir' } });
    expect(r.diagnostics).toEqual([]);
    await expect(JSON.stringify(r.ok && r.renderGraph, null, 2) + '\n').toMatchFileSnapshot('./fixtures/launch.graph.json');
  });

  it('compiles a vertical film with an alias mood, a bed, pictures and variables', async () => {
    const r = compile(fixture('vertical-alias.script'), { variables: { brand: 'Weir' } });
    expect(brief(r.diagnostics)).toEqual([]);
    await expect(JSON.stringify(r.ok && r.renderGraph, null, 2) + '\n').toMatchFileSnapshot('./fixtures/vertical-alias.graph.json');
  });
});

describe('film directives', () => {
  it('film sets the title; without it the film is Untitled with a warning at 1:1', () => {
    expect(graphOf('film "Hi"\nscene "a" 3s\n title "x"').film.title).toBe('Hi');
    const r = compile('scene "a" 3s\n title "x"');
    expect(r.ok && r.renderGraph.film.title).toBe('Untitled');
    expect(brief(r.diagnostics)).toEqual(['warning untitled 1:1']);
  });

  it('aspect picks the 1080p frame: 16:9 1920x1080, 9:16 1080x1920, 1:1 1080x1080 (16:9 by default)', () => {
    const size = (a?: string) => {
      const f = graphOf(`film "T"\n${a ? `aspect ${a}\n` : ''}scene "a" 3s\n title "x"`).film;
      return `${f.width}x${f.height}`;
    };
    expect([size(), size('16:9'), size('9:16'), size('1:1')]).toEqual(['1920x1080', '1920x1080', '1080x1920', '1080x1080']);
  });

  it('resolution sets the shorter side and fps the frame rate (30 by default)', () => {
    const f = graphOf('film "T"\naspect 9:16\nresolution 720\nfps 24\nscene "a" 3s\n title "x"').film;
    expect([f.width, f.height, f.fps]).toEqual([720, 1280, 24]);
    expect(graphOf('film "T"\nscene "a" 3s\n title "x"').film.fps).toBe(30);
  });

  it('mood takes a built-in or an alias, case-insensitively, and styles the film', () => {
    const calm = graphOf('film "T"\nmood calm\nscene "a" 3s\n text "x"');
    expect(calm.film).toMatchObject({ mood: 'calm' });
    expect(calm.film.moodAlias).toBeUndefined();
    expect(calm.scenes[0]!.background).toEqual({ kind: 'color', color: '#E8F1EE' });
    expect(calm.scenes[0]!.layers[0]).toMatchObject({ font: { family: 'Noto Sans' }, enter: { kind: 'fade' } });
    expect(graphOf('film "T"\nmood Cinematic\nscene "a" 3s\n text "x"').film).toMatchObject({ mood: 'dramatic', moodAlias: 'cinematic' });
  });

  it('a film-wide audio bed spans the whole film with its fades and volume', () => {
    const g = graphOf('film "T"\naudio asset:bed volume 0.5 fadein 1s fadeout 2s\nscene "a" 3s\n text "x"\nscene "b" 3s\n text "y"\n transition cut');
    expect(g.audio).toEqual([{ assetId: 'bed', start: 0, duration: 5.5, volume: 0.5, fadeIn: 1, fadeOut: 2 }]);
    expect(g.assets).toEqual(['bed']);
  });
});

describe('scene directives', () => {
  it('scene takes a name and a duration in s, ms or m', () => {
    const g = graphOf('film "T"\nscene "a" 1500ms\n text "x"\nscene "b" 0.05m\n text "y"\nscene "c" 2s\n text "z"', {});
    expect(g.scenes.map((s) => [s.name, s.duration])).toEqual([
      ['a', 1.5],
      ['b', 3],
      ['c', 2],
    ]);
  });

  it('background takes a colour (#rgb widened), a palette colour, or an asset over the mood background', () => {
    const bg = (v: string) => graphOf(oneScene(`background ${v}`, 'text "x"')).scenes[0]!.background;
    expect(bg('#abc')).toEqual({ kind: 'color', color: '#AABBCC' });
    expect(bg('accent')).toEqual({ kind: 'color', color: '#F5A623' });
    expect(bg('asset:sky')).toEqual({ kind: 'asset', assetId: 'sky', color: '#0B1F3A' });
  });

  it('title and text stack centred in order, entering one after another', () => {
    const [title, text] = graphOf(oneScene('title "Big"', 'text "small"')).scenes[0]!.layers as Extract<RenderGraph['scenes'][0]['layers'][0], { kind: 'title' | 'text' }>[];
    expect(title!.kind).toBe('title');
    expect(text!.kind).toBe('text');
    expect(title!.font.size).toBeGreaterThan(text!.font.size);
    expect(text!.y).toBeGreaterThan(title!.y);
    expect(text!.enter.at).toBeGreaterThan(title!.enter.at);
  });

  it('long text wraps to the frame width', () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const layer = graphOf(['film "T"', 'scene "S" 20s', `  text "${words}"`].join('\n')).scenes[0]!.layers[0]!;
    expect(layer.kind === 'text' && layer.lines.length).toBeGreaterThan(1);
    expect(layer.kind === 'text' && layer.lines.join(' ')).toBe(words);
  });

  it('image and video place pictures, with options, and push text to the lower third', () => {
    const s = graphOf(oneScene('image asset:logo fit cover', 'video asset:clip from 1.5s mute', 'text "x"')).scenes[0]!;
    expect(s.layers.slice(0, 2)).toEqual([
      { kind: 'image', line: 3, assetId: 'logo', fit: 'cover' },
      { kind: 'video', line: 4, assetId: 'clip', from: 1.5, muted: true },
    ]);
    expect(s.layers[2]!.kind === 'text' && s.layers[2]!.y).toBeGreaterThan(1080 / 2);
  });

  it('transition joins a scene to the next, overlapping them; the mood gives the default; cut joins without one', () => {
    const g = graphOf('film "T"\nscene "a" 3s\n text "x"\n transition wipeleft 1s\nscene "b" 3s\n text "y"\nscene "c" 3s\n text "z"\n');
    expect(g.scenes.map((s) => [s.start, s.transition])).toEqual([
      [0, { kind: 'wipeleft', duration: 1 }],
      [2, { kind: 'fade', duration: 0.5 }],
      [4.5, null],
    ]);
    expect(g.film.durationSeconds).toBe(7.5);
    const cut = graphOf('film "T"\nscene "a" 3s\n text "x"\n transition cut\nscene "b" 3s\n text "y"');
    expect([cut.scenes[0]!.transition, cut.scenes[1]!.start, cut.film.durationSeconds]).toEqual([null, 3, 6]);
  });

  it('scene audio starts with its scene', () => {
    const g = graphOf('film "T"\nscene "a" 3s\n text "x"\n transition fade 1s\nscene "b" 3s\n audio asset:vo fade 0.5s');
    expect(g.scenes[1]!.audio).toEqual([{ assetId: 'vo', start: 2, duration: 3, volume: 1, fadeIn: 0.5, fadeOut: 0.5 }]);
  });

  it('comments and blank lines are ignored, indentation is free', () => {
    expect(diagnosticsOf('// intro\nfilm "T" // the title\n\nscene "a" 3s\ntext "x"\n      text "y"')).toEqual([]);
  });
});

describe('template variables', () => {
  const source = 'film "{{brand}} launch"\nmood {{mood}}\nscene "a" 3s\n  background {{color}}\n  title "Meet {{ product }}!"\n  image {{logo}}';
  const variables = { brand: 'Acme', mood: 'playful', color: '#123456', product: 'Rocket', logo: 'asset:logo-7' };

  it('fill text and bare arguments, read as the argument the directive wants', () => {
    const g = graphOf(source, { variables });
    expect(g.film).toMatchObject({ title: 'Acme launch', mood: 'playful' });
    expect(g.scenes[0]!.background).toEqual({ kind: 'color', color: '#123456' });
    expect(g.scenes[0]!.layers[0]).toMatchObject({ lines: ['Meet Rocket!'] });
    expect(g.assets).toEqual(['logo-7']);
    expect(g.variables).toEqual(['brand', 'mood', 'color', 'product', 'logo']);
  });

  it('a variable in text without a value is a warning at the placeholder and shows as written', () => {
    const r = compile('film "T"\nscene "a" 3s\n  text "Hi {{name}}"');
    expect(brief(r.diagnostics)).toEqual(['warning unknown-variable 3:12']);
    expect(r.ok && r.renderGraph.scenes[0]!.layers[0]).toMatchObject({ lines: ['Hi {{name}}'] });
  });

  it('a bare argument without a value, or with a bad one, is an error at the variable', () => {
    expect(diagnosticsOf(source, { variables: { ...variables, color: undefined as never } })).toContain('error unbound-variable 4:14');
    const r = compile(source, { variables: { ...variables, color: 'blue-ish', mood: 'sleepy' } });
    expect(brief(r.diagnostics)).toEqual(['error unknown-mood 2:6', 'error bad-argument 4:14']);
    expect(r.diagnostics[0]!.message).toContain('sleepy is not a mood');
  });
});

describe('errors, each with its position, all reported in one pass', () => {
  const cases: [string, string, string[]][] = [
    ['unknown directive with a hint', 'film "T"\nscene "a" 3s\n  titel "x"', ['error unknown-directive 3:3']],
    ['missing duration', 'film "T"\nscene "a"\n  text "x"', ['error missing-duration 2:1']],
    ['duration without a unit', 'film "T"\nscene "a" 3\n  text "x"', ['error missing-unit 2:11']],
    ['zero duration', 'film "T"\nscene "a" 0s\n  text "x"', ['error out-of-range 2:11']],
    ['bad aspect', 'film "T"\naspect 4:3\nscene "a" 3s\n  text "x"', ['error bad-value 2:8']],
    ['unknown mood', 'film "T"\nmood sleepy\nscene "a" 3s\n  text "x"', ['error unknown-mood 2:6']],
    ['bad colour', 'film "T"\nscene "a" 3s\n  background #12345g', ['error bad-color 3:14']],
    ['unknown palette colour', 'film "T"\nscene "a" 3s\n  background accnt', ['error bad-argument 3:14']],
    ['bad asset id', 'film "T"\nscene "a" 3s\n  image asset:', ['error bad-asset 3:9']],
    ['unterminated string', 'film "T"\nscene "a" 3s\n  text "x', ['error unterminated-string 3:8']],
    ['unknown escape', 'film "T"\nscene "a" 3s\n  text "a\\qb"', ['error bad-escape 3:10']],
    ['broken placeholder', 'film "T"\nscene "a" 3s\n  text "a {{ 9 }}"', ['error bad-variable 3:11']],
    ['text without a string', 'film "T"\nscene "a" 3s\n  text hello', ['error bad-argument 3:8']],
    ['extra argument', 'film "T"\nscene "a" 3s\n  title "x" "y"', ['error extra-argument 3:13']],
    ['unknown option', 'film "T"\nscene "a" 3s\n  image asset:a size big', ['error bad-option 3:17', 'error bad-option 3:22']],
    ['volume out of range', 'film "T"\naudio asset:a volume 3\nscene "a" 3s\n  text "x"', ['error out-of-range 2:22']],
    ['unknown transition', 'film "T"\nscene "a" 3s\n  transition spin 1s', ['error bad-value 3:14']],
    ['scene directive before any scene', 'film "T"\ntitle "x"\nscene "a" 3s\n  text "x"', ['error outside-scene 2:1']],
    ['film directive after a scene', 'film "T"\nscene "a" 3s\n  text "x"\nmood calm', ['error after-scenes 4:1']],
    ['line not starting with a directive', 'film "T"\n"loose"\nscene "a" 3s\n  text "x"', ['error expected-directive 2:1']],
    ['unexpected token', 'film "T"\nscene "a" 3s\n  text "x" %%', ['error unexpected-token 3:12']],
    ['no scenes', 'film "T"\nmood calm', ['error no-scenes 1:1']],
    ['film too long', 'film "T"\n' + Array.from({ length: 7 }, (_, i) => `scene "s${i}" 10m\n  text "x"\n  transition cut`).join('\n'), ['error film-too-long 1:1']],
  ];
  it.each(cases)('%s', (_name, source, expected) => {
    const r = compile(source);
    expect(r.ok).toBe(false);
    expect(brief(r.diagnostics)).toEqual(expected);
    for (const d of r.diagnostics) expect(d.message.length).toBeGreaterThan(10);
  });

  it('names the near miss', () => {
    const [d] = compile('film "T"\nscene "a" 3s\n  titel "x"').diagnostics;
    expect(d!.message).toBe('unknown directive titel; did you mean title?');
  });

  it('reports every error of a script at once, in source order', () => {
    const source = ['film "T"', 'mod calm', 'aspect 4:3', 'scene "a"', '  titel "x"', '  text "open', 'scene "b" 3', '  background #zzz'].join('\n');
    expect(diagnosticsOf(source)).toEqual([
      'error unknown-directive 2:1',
      'error bad-value 3:8',
      'error missing-duration 4:1',
      'error unknown-directive 5:3',
      'error unterminated-string 6:8',
      'error missing-unit 7:11',
      'error bad-color 8:14',
    ]);
  });
});

describe('warnings: it renders, but looks wrong', () => {
  const cases: [string, string, string[]][] = [
    ['text too long to read in the time', oneScene(`text "${'word '.repeat(20).trim()}"`), ['warning text-too-long 2:1']],
    ['a scene shorter than its transition', 'film "T"\nscene "a" 1s\n  text "x"\n  transition fade 2s\nscene "b" 3s\n  text "y"', ['warning scene-too-short 2:1', 'warning transition-too-long 4:3']],
    ['a next scene shorter than the transition', 'film "T"\nmood urgent\nscene "a" 3s\n  text "x"\n  transition fade 2s\nscene "b" 1s\n  text "y"', ['warning transition-too-long 5:3']],
    ['a transition on the last scene', oneScene('text "x"', 'transition fade 1s'), ['warning transition-at-end 4:3']],
    ['unknown variable', oneScene('text "{{who}}"'), ['warning unknown-variable 3:9']],
    ['empty scene', 'film "T"\nscene "a" 3s', ['warning empty-scene 2:1']],
    ['empty text', oneScene('text ""'), ['warning empty-text 3:8']],
    ['a word wider than the frame', oneScene(`title "${'x'.repeat(60)}"`), ['warning text-overflow 3:9']],
    ['too many lines', ['film "T"', 'scene "S" 60s', `  text "${'lorem ipsum dolor '.repeat(20)}"`].join('\n'), ['warning text-overflow 3:8']],
    ['duplicate scene names', 'film "T"\nscene "a" 3s\n  text "x"\nscene "a" 3s\n  text "y"', ['warning duplicate-scene 4:7']],
    ['a directive given twice', 'film "T"\naspect 1:1\naspect 9:16\nscene "a" 3s\n  text "x"', ['warning repeated-directive 3:1']],
    ['a scene too short for the mood', 'film "T"\nmood dramatic\nscene "a" 1s\n  text "x"', ['warning scene-too-short 3:1']],
  ];
  it.each(cases)('%s', (_name, source, expected) => {
    const r = compile(source);
    expect(r.ok).toBe(true);
    expect(brief(r.diagnostics)).toEqual(expected);
  });

  it('shortens a transition that does not fit to half the shorter scene', () => {
    const g = graphOf('film "T"\nscene "a" 1s\n  text "x"\n  transition fade 2s\nscene "b" 3s\n  text "y"');
    expect(g.scenes[0]!.transition).toEqual({ kind: 'fade', duration: 0.5 });
    expect(g.film.durationSeconds).toBe(3.5);
  });

  it('the last repeated directive counts', () => {
    expect(graphOf('film "T"\naspect 1:1\naspect 9:16\nscene "a" 3s\n  text "x"').film.aspect).toBe('9:16');
  });
});

describe('compile options', () => {
  const source = 'film "T"\nmood elegant\nscene "a" 3s\n  title "x"\n  text "y"';

  it('theme lays a pack over the mood: palette and type families, motion kept', () => {
    const plain = graphOf(source);
    const themed = graphOf(source, { theme: 'neon' });
    expect(themed.film.theme).toBe('neon');
    expect(themed.style.palette.background).toBe('#000000');
    expect(themed.scenes[0]!.background).toEqual({ kind: 'color', color: '#000000' });
    expect(themed.scenes[0]!.layers[0]).toMatchObject({ color: '#FF2BD6', enter: plain.scenes[0]!.layers[0]!.kind === 'title' ? plain.scenes[0]!.layers[0]!.enter : {} });
    expect(graphOf(source, { theme: 'mono' }).scenes[0]!.layers[1]).toMatchObject({ font: { family: 'DejaVu Sans Mono' } });
  });

  it('preview renders at 360p and at most 15 frames a second, with text scaled to the frame', () => {
    const g = graphOf(source, { preview: true });
    expect(g.film).toMatchObject({ width: 640, height: 360, fps: 15, preview: true });
    const full = graphOf(source);
    const size = (x: RenderGraph) => (x.scenes[0]!.layers[0]!.kind === 'title' ? (x.scenes[0]!.layers[0] as { font: { size: number } }).font.size : 0);
    expect(size(g) * 3).toBeCloseTo(size(full), -1);
  });
});

describe('hostile scripts', () => {
  const scenes = (n: number, body = '') => ['film "T"', ...Array.from({ length: n }, (_, i) => `scene "s${i}" 1s${body}`)].join('\n');

  it('lists at most MAX_DIAGNOSTICS findings and says how many more there were', () => {
    const ds = compile(scenes(5_000)).diagnostics;
    expect(ds).toHaveLength(MAX_DIAGNOSTICS + 1);
    expect(ds.at(-1)).toMatchObject({ level: 'warning', code: 'too-many-diagnostics' });
    expect(ds.at(-1)!.message).toMatch(/^\d+ more findings are not listed/);
  });

  it('still fails a script whose only error comes after the listed findings', () => {
    // 2,000 empty 4-second scenes: their warnings fill the list before the build finds the film too long.
    const r = compile(['film "T"', ...Array.from({ length: 2_000 }, (_, i) => `scene "s${i}" 4s`)].join('\n'));
    expect(r.ok).toBe(false);
    expect(r.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
  });

  it('finds the errors of every empty scene past the cap: an empty scene after a dropped line is not called empty', () => {
    // 3,000 scenes each with a bad line: no empty-scene warning anywhere, though most errors are unlisted.
    const ds = compile(scenes(3_000, '\n  text 12')).diagnostics;
    expect(ds.filter((d) => d.code === 'empty-scene')).toEqual([]);
  });

  it('quotes a long variable value shortly in every message', () => {
    const value = `#${'0'.repeat(9_998)}`;
    const source = ['film "T"', 'scene "S" 4s', ...Array.from({ length: 50 }, () => '  background {{c}}')].join('\n');
    const r = compile(source, { variables: { c: value } });
    expect(r.ok).toBe(false);
    for (const d of r.diagnostics) expect(d.message.length).toBeLessThan(200);
  });

  it('gives no "did you mean" for a word longer than any name', () => {
    const ds = compile(oneScene(`${'q'.repeat(100_000)}`)).diagnostics;
    const unknown = ds.find((d) => d.code === 'unknown-directive')!.message;
    expect(unknown).not.toContain('did you mean');
    expect(unknown).toContain('(100000 characters)');
    expect(compile(oneScene('titel "x"')).diagnostics[0]!.message).toContain('did you mean title?');
  });
});
