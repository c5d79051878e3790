import { BUILT_IN_MOODS, MOODS } from '../domain/video/moods.js';
import { api, describe, missingScope, upload } from './api.js';
import { byId, fill, h } from './dom.js';
import type { Editor } from './editor.js';
import type { RenderPanel } from './render.js';
import { shared, update, type Asset, type Variables } from './state.js';

/**
 * Moods to browse and apply, templates with a form generated from each one's variable schema, and
 * the organization's assets, added by drag and drop (or the file picker) and inserted as asset:<id>.
 */

interface TemplateVariable {
  name: string;
  type: 'string' | 'number' | 'boolean';
  required: boolean;
  example?: string | number | boolean;
  default?: string | number | boolean;
}
interface Template {
  name: string;
  description: string;
  version: string;
  variables: TemplateVariable[];
  source: string;
}

/** Sets the film's mood line, or adds one after `film`. */
function applyMood(editor: Editor, mood: string): void {
  const lines = editor.text().split('\n');
  const at = lines.findIndex((l) => /^\s*mood\b/.test(l));
  if (at >= 0) lines[at] = `mood ${mood}`;
  else lines.splice(Math.max(0, lines.findIndex((l) => /^\s*film\b/.test(l))) + 1, 0, `mood ${mood}`);
  editor.setText(lines.join('\n'));
}

function moodList(editor: Editor): HTMLElement[] {
  return BUILT_IN_MOODS.map((m) =>
    h(
      'li',
      { class: 'mood' },
      h('div', { class: 'swatches' }, ...Object.entries(MOODS[m].palette).map(([role, c]) => h('span', { class: 'swatch', style: `background:${c}`, title: `${role} ${c}` }))),
      h('strong', {}, m),
      h('p', {}, MOODS[m].description),
      h('button', { type: 'button', onclick: () => applyMood(editor, m), 'aria-label': `Use mood ${m}` }, 'Use'),
    ),
  );
}

/** One input per variable, typed by the schema; its values become the `variables` of every call. */
function variableForm(t: Template, onChange: (v: Variables) => void): HTMLFormElement {
  const form = h('form', { class: 'variables', 'aria-label': `Variables of ${t.name}` });
  const read = (): Variables => {
    const out: Variables = {};
    for (const v of t.variables) {
      const input = form.elements.namedItem(v.name) as HTMLInputElement;
      if (v.type === 'boolean') out[v.name] = input.checked;
      else if (input.value !== '') out[v.name] = v.type === 'number' ? Number(input.value) : input.value;
    }
    return out;
  };
  for (const v of t.variables) {
    const id = `var-${t.name}-${v.name}`;
    const initial = v.default ?? v.example;
    const input =
      v.type === 'boolean'
        ? h('input', { id, name: v.name, type: 'checkbox', checked: initial === true })
        : h('input', { id, name: v.name, type: v.type === 'number' ? 'number' : 'text', step: v.type === 'number' ? 'any' : undefined, required: v.required, value: initial === undefined ? undefined : String(initial), placeholder: v.example === undefined ? undefined : String(v.example) });
    form.append(h('div', { class: 'field' }, h('label', { for: id }, `${v.name}${v.required ? ' *' : ''}`, h('small', {}, ` ${v.type}`)), input));
  }
  form.addEventListener('input', () => onChange(read()));
  onChange(read());
  return form;
}

export function mountLibrary(editor: Editor, render: RenderPanel) {
  const moods = byId('moods');
  const templates = byId('templates');
  const templateDetail = byId('template-detail');
  const assets = byId('assets');
  const drop = byId('asset-drop');
  const picker = byId<HTMLInputElement>('asset-file');
  const assetStatus = byId('asset-status');
  fill(moods, ...moodList(editor));

  function openTemplate(t: Template): void {
    fill(
      templateDetail,
      h('h4', {}, `${t.name} `, h('small', {}, `v${t.version}`)),
      h('p', {}, t.description),
      variableForm(t, (v) => update('variables', v)),
      h('div', { class: 'actions' }, h('button', { type: 'button', onclick: () => editor.setText(t.source) }, 'Open in editor'), h('button', { type: 'button', onclick: () => void render.renderTemplate(t.name) }, 'Render template')),
    );
  }

  async function loadTemplates(): Promise<void> {
    const missing = missingScope('templates:read');
    if (missing) return fill(templates, h('li', { class: 'hint' }, `Templates unavailable: ${missing}`));
    try {
      const { body } = await api<{ templates: Template[] }>('GET', '/api/templates');
      fill(templates, ...(body.templates.length ? body.templates.map((t) => h('li', {}, h('button', { type: 'button', onclick: () => openTemplate(t) }, t.name), ` ${t.description}`)) : [h('li', { class: 'hint' }, 'No templates yet (POST /api/templates).')]));
    } catch (err) {
      fill(templates, h('li', { class: 'hint' }, `Templates unavailable: ${describe(err)}`));
    }
  }

  function drawAssets(): void {
    fill(
      assets,
      ...shared.assets.map((a) =>
        h(
          'li',
          { class: 'asset' },
          a.mimetype.startsWith('image/') ? h('img', { src: `/assets/${a.assetId}`, alt: '', loading: 'lazy' }) : h('span', { class: 'asset-kind' }, a.mimetype.split('/')[0]!),
          h('span', { class: 'asset-name' }, a.filename),
          h('button', { type: 'button', onclick: () => editor.insert(`asset:${a.assetId}`), 'aria-label': `Insert asset ${a.filename}` }, 'Insert'),
        ),
      ),
    );
  }

  async function loadAssets(): Promise<void> {
    const missing = missingScope('assets:read');
    if (missing) {
      assetStatus.textContent = `Assets unavailable: ${missing}`;
      return;
    }
    try {
      const { body } = await api<{ assets: Asset[] }>('GET', '/api/assets?limit=100');
      update('assets', body.assets);
      drawAssets();
    } catch (err) {
      assetStatus.textContent = `Assets unavailable: ${describe(err)}`;
    }
  }

  async function add(files: FileList | File[]): Promise<void> {
    for (const file of files) {
      assetStatus.textContent = `Uploading ${file.name}…`;
      try {
        await upload('/api/assets', file);
        assetStatus.textContent = `Added ${file.name}`;
      } catch (err) {
        assetStatus.textContent = `${file.name} refused: ${describe(err)}`;
      }
    }
    await loadAssets();
  }

  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    if (e.dataTransfer?.files.length) void add(e.dataTransfer.files);
  });
  picker.addEventListener('change', () => picker.files && void add(picker.files));
  return { load: () => Promise.all([loadTemplates(), loadAssets()]) };
}
