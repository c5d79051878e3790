import { api, ApiError, authHeaders, describe, missingScope } from './api.js';
import { byId, fill, h } from './dom.js';
import type { Editor } from './editor.js';

/**
 * Documents: list, open, create from the editor, save (If-Match on the version opened), versions
 * with restore, and annotations in the editor's gutter. Opening takes the edit lock and renews it
 * while the document stays open; when another principal holds it, the document opens read-only
 * with the holder and expiry shown. Closing (or leaving the page) releases it.
 */

interface Doc {
  id: string;
  name: string;
  source: string;
  version: number;
  lock: { locked: boolean; owner?: string; expiresAt?: string };
}
interface Version {
  version: number;
  kind: string;
  author: string;
  createdAt: string;
}
interface Annotation {
  id: string;
  text: string;
  line: number;
  outdated: boolean;
  resolved: boolean;
}

const LOCK_TTL_SECONDS = 60;
/** Renewed at half its life, so a slow request never lets it lapse. */
const RENEW_MS = (LOCK_TTL_SECONDS * 1000) / 2;

export function mountDocuments(editor: Editor) {
  const list = byId('documents');
  const status = byId('document-status');
  const lockLine = byId('lock-status');
  const versions = byId('versions');
  const nameInput = byId<HTMLInputElement>('document-name');
  const saveButton = byId<HTMLButtonElement>('document-save');
  const closeButton = byId<HTMLButtonElement>('document-close');
  const noteInput = byId<HTMLInputElement>('note-text');
  const noteButton = byId<HTMLButtonElement>('note-add');
  let open: Doc | null = null;
  let holding = false;
  let renew: ReturnType<typeof setInterval> | undefined;

  function showOpen(): void {
    const editable = Boolean(open && holding);
    saveButton.disabled = !editable;
    closeButton.disabled = !open;
    noteButton.disabled = !open;
    status.textContent = open ? `Open: ${open.name} (version ${open.version})` : 'No document open: the editor holds a scratch script.';
    if (open) nameInput.value = open.name;
  }

  function showLock(lock: Doc['lock'], mine: boolean): void {
    lockLine.dataset.state = mine ? 'mine' : lock.locked ? 'held' : 'free';
    lockLine.textContent = mine
      ? `You hold the edit lock until ${new Date(lock.expiresAt!).toLocaleTimeString()} (renewed while open)`
      : lock.locked
        ? `Locked by ${lock.owner} until ${new Date(lock.expiresAt!).toLocaleTimeString()}: read only`
        : 'Not locked';
  }

  async function takeLock(): Promise<void> {
    if (!open) return;
    try {
      const { body } = await api<Doc['lock']>('POST', `/api/documents/${open.id}/lock`, { json: { ttlSeconds: LOCK_TTL_SECONDS } });
      holding = true;
      showLock(body, true);
    } catch (err) {
      holding = false;
      if (err instanceof ApiError && err.status === 409) showLock({ locked: true, owner: String(err.body.owner), expiresAt: String(err.body.expiresAt) }, false);
      else lockLine.textContent = `Lock unavailable: ${describe(err)}`;
    }
    editor.setReadOnly(!holding);
    showOpen();
  }

  async function loadVersions(): Promise<void> {
    if (!open) return fill(versions);
    const { body } = await api<{ versions: Version[] }>('GET', `/api/documents/${open.id}/versions?limit=20`);
    fill(
      versions,
      ...body.versions.map((v) =>
        h(
          'li',
          {},
          `v${v.version} ${v.kind} by ${v.author}, ${new Date(v.createdAt).toLocaleString()} `,
          v.version === open!.version ? h('em', {}, 'current') : h('button', { type: 'button', onclick: () => void restore(v.version), 'aria-label': `Restore version ${v.version}` }, 'Restore'),
        ),
      ),
    );
  }

  async function loadNotes(): Promise<void> {
    if (!open) return editor.setNotes([]);
    const { body } = await api<{ annotations: Annotation[] }>('GET', `/api/documents/${open.id}/annotations`);
    editor.setNotes(body.annotations.filter((a) => !a.resolved).map((a) => ({ line: a.line, text: a.text, outdated: a.outdated })));
  }

  function opened(doc: Doc): void {
    open = doc;
    editor.setText(doc.source);
    showOpen();
    void loadVersions();
    void loadNotes();
  }

  async function openDocument(id: string): Promise<void> {
    await release();
    try {
      const { body } = await api<Doc>('GET', `/api/documents/${id}`);
      opened(body);
      await takeLock();
      clearInterval(renew);
      renew = setInterval(() => void takeLock(), RENEW_MS);
    } catch (err) {
      status.textContent = `Could not open: ${describe(err)}`;
    }
  }

  async function release(): Promise<void> {
    clearInterval(renew);
    if (open && holding) await api('DELETE', `/api/documents/${open.id}/lock`).catch(() => undefined);
    holding = false;
    open = null;
    editor.setReadOnly(false);
    editor.setNotes([]);
    lockLine.textContent = '';
    fill(versions);
    showOpen();
  }

  async function save(): Promise<void> {
    if (!open) return;
    try {
      const { body } = await api<Doc>('PUT', `/api/documents/${open.id}`, { json: { source: editor.text(), name: nameInput.value.trim() || open.name }, headers: { 'if-match': `"v${open.version}"` } });
      open = body;
      status.textContent = `Saved version ${body.version}`;
      void loadVersions();
      void loadList();
    } catch (err) {
      status.textContent = `Not saved: ${describe(err)}`;
    }
  }

  async function restore(version: number): Promise<void> {
    if (!open) return;
    try {
      const { body } = await api<Doc>('POST', `/api/documents/${open.id}/versions/${version}/restore`, { headers: { 'if-match': `"v${open.version}"` } });
      opened(body);
      status.textContent = `Restored version ${version} as version ${body.version}`;
    } catch (err) {
      status.textContent = `Not restored: ${describe(err)}`;
    }
  }

  async function create(): Promise<void> {
    const name = nameInput.value.trim() || 'Untitled';
    try {
      const { body } = await api<Doc>('POST', '/api/documents', { json: { name, source: editor.text() } });
      await loadList();
      await openDocument(body.id);
    } catch (err) {
      status.textContent = `Not created: ${describe(err)}`;
    }
  }

  async function loadList(): Promise<void> {
    const missing = missingScope('documents:read');
    if (missing) return fill(list, h('li', { class: 'hint' }, `Documents unavailable: ${missing}`));
    try {
      const { body } = await api<{ documents: Doc[] }>('GET', '/api/documents?limit=100');
      fill(list, ...body.documents.map((d) => h('li', {}, h('button', { type: 'button', onclick: () => void openDocument(d.id), 'aria-label': `Open document ${d.name}` }, d.name), ` v${d.version}`)));
    } catch (err) {
      fill(list, h('li', { class: 'hint' }, `Documents unavailable: ${describe(err)}`));
    }
  }

  async function annotate(): Promise<void> {
    const text = noteInput.value.trim();
    if (!open || !text) return;
    try {
      await api('POST', `/api/documents/${open.id}/annotations`, { json: { text, line: editor.currentLine() } });
      noteInput.value = '';
      await loadNotes();
    } catch (err) {
      status.textContent = `Annotation not added: ${describe(err)}`;
    }
  }

  byId('document-new').addEventListener('click', () => void create());
  saveButton.addEventListener('click', () => void save());
  closeButton.addEventListener('click', () => void release());
  noteButton.addEventListener('click', () => void annotate());
  // Leaving the page gives the lock back at once rather than at its expiry.
  window.addEventListener('pagehide', () => {
    if (open && holding) void fetch(`/api/documents/${open.id}/lock`, { method: 'DELETE', keepalive: true, headers: authHeaders() });
  });
  showOpen();
  return { load: loadList, open: async (id: string) => (await loadList(), openDocument(id)) };
}
