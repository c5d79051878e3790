import { describe, expect, it } from 'vitest';
import { anchorOn, reanchor, scenesByName } from './annotation-anchor.js';
import { compile } from './compile.js';
import { applyEdits, type EditOp } from './script-edit.js';
import { modelOf, outline } from './script-outline.js';

const SCRIPT = [
  'film "Launch Day"',
  'mood confident',
  '',
  'scene "Intro" 3s // opening',
  '  background #101820',
  '  title "Hello \\"world\\""',
  '  text "Ships today"',
  '  transition fade 0.5s',
  '',
  'scene "Middle" 2s',
  '  text "Details"',
  '',
  'scene "Outro" 2s',
  '  text "{{product}}"',
  '',
].join('\n');

const edit = (ops: EditOp[], source = SCRIPT) => {
  const r = applyEdits(source, ops);
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r;
};

describe('the script as JSON', () => {
  it('reads title, mood, scenes with durations, transitions and layer texts (escapes undone, variables as written)', () => {
    expect(modelOf(outline(SCRIPT))).toEqual({
      title: 'Launch Day',
      mood: 'confident',
      aspect: null,
      scenes: [
        {
          name: 'Intro',
          duration: 3,
          transition: { kind: 'fade', duration: 0.5 },
          layers: [{ kind: 'background' }, { kind: 'title', text: 'Hello "world"' }, { kind: 'text', text: 'Ships today' }],
        },
        { name: 'Middle', duration: 2, transition: null, layers: [{ kind: 'text', text: 'Details' }] },
        { name: 'Outro', duration: 2, transition: null, layers: [{ kind: 'text', text: '{{product}}' }] },
      ],
    });
  });
});

describe('applyEdits', () => {
  it('sets a duration and a text in place, keeping comments, spacing and every other line', () => {
    const r = edit([
      { op: 'replace', path: '/scenes/0/duration', value: 4.25 },
      { op: 'replace', path: '/scenes/0/layers/1/text', value: 'Say "hi"\nagain' },
    ]);
    const lines = r.source.split('\n');
    expect(lines[3]).toBe('scene "Intro" 4.25s // opening');
    expect(lines[5]).toBe('  title "Say \\"hi\\"\\nagain"');
    expect(lines.filter((_, i) => i !== 3 && i !== 5)).toEqual(SCRIPT.split('\n').filter((_, i) => i !== 3 && i !== 5));
    expect(modelOf(outline(r.source)).scenes[0]!.layers[1]).toEqual({ kind: 'title', text: 'Say "hi"\nagain' });
    expect(compile(r.source).ok).toBe(true);
  });

  it('sets the mood and transitions: replaces what is there, adds what is not, removes on remove', () => {
    const r = edit([
      { op: 'replace', path: '/mood', value: 'cinematic' },
      { op: 'replace', path: '/scenes/0/transition', value: { kind: 'wipeleft', duration: 1 } },
      { op: 'add', path: '/scenes/1/transition', value: { kind: 'dissolve' } },
    ]);
    const m = modelOf(outline(r.source));
    expect(m.mood).toBe('cinematic');
    expect(m.scenes.map((s) => s.transition)).toEqual([{ kind: 'wipeleft', duration: 1 }, { kind: 'dissolve', duration: null }, null]);
    expect(r.source.split('\n').slice(9, 12)).toEqual(['scene "Middle" 2s', '  text "Details"', '  transition dissolve']);
    const removed = edit([{ op: 'remove', path: '/scenes/0/transition' }, { op: 'remove', path: '/mood' }], r.source);
    expect(modelOf(outline(removed.source))).toMatchObject({ mood: null, scenes: [{ transition: null }, {}, {}] });
    const added = edit([{ op: 'add', path: '/mood', value: 'calm' }], removed.source);
    expect(added.source.split('\n').slice(0, 2)).toEqual(['film "Launch Day"', 'mood calm']);
  });

  it('inserts, removes and moves scenes, and says where each scene came from', () => {
    const r = edit([
      { op: 'add', path: '/scenes/1', value: { name: 'New', duration: 1.5, lines: ['text "Fresh"'] } },
      { op: 'move', from: '/scenes/3', path: '/scenes/0' },
      { op: 'remove', path: '/scenes/3' },
      { op: 'add', path: '/scenes/-', value: { name: 'End', duration: 1 } },
    ]);
    expect(modelOf(outline(r.source)).scenes.map((s) => s.name)).toEqual(['Outro', 'Intro', 'New', 'End']);
    expect(r.sceneOrigin).toEqual([2, 0, null, null]);
    expect(compile(r.source).ok).toBe(true);
    expect(r.source.split('\n').slice(11)).toEqual(['', 'scene "New" 1.5s', '  text "Fresh"', '', 'scene "End" 1s', '']);
  });

  it('is all or nothing: test preconditions, bad addresses and bad values name the operation that failed', () => {
    const cases: [EditOp[], number, string, RegExp][] = [
      [[{ op: 'test', path: '/scenes/0/name', value: 'Intro' }, { op: 'test', path: '/scenes/1/duration', value: 3 }], 1, 'test-failed', /\/scenes\/1\/duration is 2, not 3/],
      [[{ op: 'replace', path: '/scenes/0/duration', value: 4 }, { op: 'replace', path: '/scenes/9/duration', value: 1 }], 1, 'bad-path', /3 scenes; there is no scene 9/],
      [[{ op: 'replace', path: '/scenes/0/layers/0/text', value: 'x' }], 0, 'bad-path', /a background, which has no text/],
      [[{ op: 'replace', path: '/scenes/0/duration', value: '4s' }], 0, 'bad-value', /number of seconds/],
      [[{ op: 'add', path: '/scenes/0', value: { name: 'x', duration: 1, lines: ['scene "y" 1s'] } }], 0, 'bad-value', /starts another scene/],
      [[{ op: 'replace', path: 'scenes/0', value: 1 }], 0, 'bad-path', /JSON Pointer/],
      [[{ op: 'replace', path: '/aspect', value: '1:1' }], 0, 'bad-path', /not an address/],
    ];
    for (const [ops, index, code, message] of cases) {
      const r = applyEdits(SCRIPT, ops);
      expect(r, JSON.stringify(ops)).toMatchObject({ ok: false, index, code, message: expect.stringMatching(message) });
    }
    expect(edit([{ op: 'test', path: '/scenes/1', value: modelOf(outline(SCRIPT)).scenes[1] }]).source).toBe(SCRIPT);
  });

  it('keeps CRLF line ends', () => {
    const crlf = SCRIPT.replace(/\n/g, '\r\n');
    expect(edit([{ op: 'remove', path: '/scenes/1' }], crlf).source).toBe(edit([{ op: 'remove', path: '/scenes/1' }]).source.replace(/\n/g, '\r\n'));
  });
});

describe('annotation anchors', () => {
  const before = outline(SCRIPT);

  it('a scene anchor and a line anchor follow their scene through a move, and a line whose text changed is gone', () => {
    const r = edit([
      { op: 'move', from: '/scenes/0', path: '/scenes/2' },
      { op: 'replace', path: '/scenes/2/layers/2/text', value: 'Ships tomorrow' },
    ]);
    const after = outline(r.source);
    const onScene = anchorOn(before, { scene: 0 })!;
    const onTitle = anchorOn(before, { line: 6 })!;
    const onText = anchorOn(before, { line: 7 })!;
    expect(onTitle).toEqual({ kind: 'line', line: 6, endLine: 6, scene: 0 });
    const movedScene = reanchor(onScene, before, after, r.sceneOrigin)!;
    expect(movedScene.scene).toBe(2);
    expect(after.lines[movedScene.line - 1]).toBe('scene "Intro" 3s // opening');
    const movedTitle = reanchor(onTitle, before, after, r.sceneOrigin)!;
    expect(after.lines[movedTitle.line - 1]).toBe('  title "Hello \\"world\\""');
    expect(movedTitle.scene).toBe(2);
    expect(reanchor(onText, before, after, r.sceneOrigin)).toBeNull();
  });

  it('an anchor in a removed scene is gone; film lines stay film lines', () => {
    const r = edit([{ op: 'remove', path: '/scenes/1' }]);
    const after = outline(r.source);
    expect(reanchor(anchorOn(before, { line: 11 })!, before, after, r.sceneOrigin)).toBeNull();
    expect(reanchor(anchorOn(before, { line: 1, endLine: 2 })!, before, after, r.sceneOrigin)).toEqual({ kind: 'line', line: 1, endLine: 2, scene: null });
  });

  it('without an edit, scenes are matched by name', () => {
    const swapped = outline(SCRIPT.replace('scene "Middle" 2s\n  text "Details"\n\n', '') + 'scene "Middle" 2s\n  text "Details"\n');
    expect(scenesByName(before, swapped)).toEqual([0, 2, 1]);
  });

  it('refuses anchors outside the script', () => {
    expect(anchorOn(before, { line: 99 })).toBeNull();
    expect(anchorOn(before, { line: 5, endLine: 4 })).toBeNull();
    expect(anchorOn(before, { scene: 3 })).toBeNull();
    expect(anchorOn(before, { line: 5, scene: 1 })).toBeNull();
  });
});
