import './studio.css';
import { mountDocuments } from './documents.js';
import { createEditor } from './editor.js';
import { recheck } from './diagnostics.js';
import { byId } from './dom.js';
import { mountLibrary } from './library.js';
import { registerMediaWorker } from './media.js';
import { mountRender } from './render.js';
import { mountSignIn } from './sign-in.js';
import { mountSources } from './sources.js';
import { mountTabs } from './tabs.js';
import { mountTimeline } from './timeline.js';
import { watch } from './state.js';

/** The studio page: the editor on the left, the panels on the right; each panel is its own module. */

registerMediaWorker();
const editor = createEditor(byId('editor'), () => undefined);
mountTimeline(editor);
const render = mountRender(editor);
const library = mountLibrary(editor, render);
const documents = mountDocuments(editor);
const sources = mountSources(async (id) => {
  // A clip document opens in the editor, its panel shown.
  byId('tab-documents').click();
  await documents.open(id);
});

/** Each panel loads when first shown after sign-in, and again when shown later. */
const loaders: Record<string, () => unknown> = {
  'panel-render': () => render.refresh(),
  'panel-library': () => library.load(),
  'panel-documents': () => documents.load(),
  'panel-sources': () => sources.load(),
};
// Template variables change what the script compiles to: check it again.
watch(['variables'], () => editor.view.dispatch({ effects: recheck.of(null) }));
let signedIn = false;
let shown = 'panel-preview';
mountTabs((panel) => {
  shown = panel;
  if (signedIn) void loaders[panel]?.();
});
mountSignIn(
  () => {
    signedIn = true;
    editor.view.dispatch({ effects: recheck.of(null) });
    // The assets feed completion and hover whichever panel is shown.
    void library.load();
    void loaders[shown]?.();
    editor.view.focus();
  },
  () => (signedIn = false),
);
