import { closeBrackets } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, indentUnit } from '@codemirror/language';
import { lintGutter, lintKeymap } from '@codemirror/lint';
import { completionKeymap } from '@codemirror/autocomplete';
import { Compartment, EditorState, RangeSet, StateEffect, StateField } from '@codemirror/state';
import { drawSelection, EditorView, gutter, GutterMarker, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { completion, hoverHelp } from './assist.js';
import { compileLinter } from './diagnostics.js';
import { scriptHighlighting } from './language.js';

/**
 * The script editor: CodeMirror 6 with the language's highlighting, completion, hover help and
 * diagnostics, a gutter for a document's annotations, and read-only mode while another principal
 * holds the document's lock. Tab indents; Escape then Tab leaves the editor (CodeMirror's rule).
 */

export const SAMPLE = `film "Hello Weir"
mood confident
aspect 16:9

scene "Opening" 3s
  title "Hello from the studio"
  text "Write, preview and render"
  transition fade 0.5s

scene "Close" 2s
  background accent
  title "Thanks for watching"
`;

/** A document's annotations, as line markers with their text as the tooltip. */
export interface Note {
  line: number;
  text: string;
  outdated: boolean;
}

class NoteMarker extends GutterMarker {
  constructor(readonly notes: Note[]) {
    super();
  }
  override toDOM() {
    const el = document.createElement('span');
    el.className = `note-marker${this.notes.every((n) => n.outdated) ? ' outdated' : ''}`;
    el.textContent = '●';
    el.title = this.notes.map((n) => n.text).join('\n');
    el.setAttribute('role', 'img');
    el.setAttribute('aria-label', `Annotation: ${el.title}`);
    return el;
  }
}

const setNotes = StateEffect.define<Note[]>();
const notesField = StateField.define<RangeSet<GutterMarker>>({
  create: () => RangeSet.empty,
  update(set, tr) {
    for (const e of tr.effects) {
      if (!e.is(setNotes)) continue;
      const byLine = new Map<number, Note[]>();
      for (const n of e.value) if (n.line >= 1 && n.line <= tr.state.doc.lines) byLine.set(n.line, [...(byLine.get(n.line) ?? []), n]);
      return RangeSet.of([...byLine].sort((a, b) => a[0] - b[0]).map(([line, notes]) => new NoteMarker(notes).range(tr.state.doc.line(line).from)));
    }
    return set.map(tr.changes);
  },
});

/** Dark, so CodeMirror's tooltips and completion list take their dark variants too. */
const darkTheme = EditorView.theme(
  {
    '.cm-tooltip': { background: 'var(--panel)', color: 'var(--text)', border: '1px solid var(--line)', borderRadius: '6px' },
    '.cm-tooltip-autocomplete > ul > li[aria-selected]': { background: 'var(--accent)', color: '#06101f' },
    '.cm-completionDetail': { color: 'var(--muted)' },
    '.cm-diagnostic-error': { borderLeftColor: 'var(--error)' },
    '.cm-diagnostic-warning': { borderLeftColor: 'var(--warn)' },
  },
  { dark: true },
);

const readOnly = new Compartment();
const readOnlyMode = (on: boolean) => [EditorState.readOnly.of(on), EditorView.contentAttributes.of({ 'aria-readonly': String(on) })];

export function createEditor(parent: HTMLElement, onChange: () => void) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: SAMPLE,
      extensions: [
        lineNumbers(),
        gutter({ class: 'cm-notes-gutter', markers: (v) => v.state.field(notesField) }),
        lintGutter(),
        notesField,
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        indentUnit.of('  '),
        darkTheme,
        scriptHighlighting,
        completion,
        hoverHelp,
        compileLinter,
        readOnly.of(readOnlyMode(false)),
        keymap.of([...completionKeymap, ...lintKeymap, ...historyKeymap, indentWithTab, ...defaultKeymap]),
        EditorView.contentAttributes.of({ 'aria-label': 'Script', 'aria-multiline': 'true' }),
        EditorView.updateListener.of((u) => u.docChanged && onChange()),
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text: string) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    insert(text: string) {
      const { from, to } = view.state.selection.main;
      view.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length } });
      view.focus();
    },
    /** Puts the caret at the start of a line and shows it. */
    gotoLine(line: number) {
      const l = view.state.doc.line(Math.min(Math.max(1, line), view.state.doc.lines));
      view.dispatch({ selection: { anchor: l.from }, scrollIntoView: true });
    },
    currentLine: () => view.state.doc.lineAt(view.state.selection.main.head).number,
    setReadOnly(on: boolean) {
      view.dispatch({ effects: readOnly.reconfigure(readOnlyMode(on)) });
    },
    setNotes(notes: Note[]) {
      view.dispatch({ effects: setNotes.of(notes) });
    },
  };
}

export type Editor = ReturnType<typeof createEditor>;
