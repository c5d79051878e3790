import { api, describe, missingScope } from './api.js';
import { byId, clock, fill, h } from './dom.js';

/**
 * Sources: upload a long recording (optionally with SRT/VTT subtitles), preprocess it while its
 * progress shows, then play it (its public media address, with ranges) beside its transcript (click
 * a sentence to seek) and its shots as thumbnails (click one to seek). Clips: candidate windows for
 * a typed goal (POST /api/clips/candidates), each playable, and "Make clip document", which snaps
 * the window to clean edges (…/refine), makes the clip document and opens it in the editor.
 */

interface Candidate {
  start: number;
  end: number;
  score: number;
  text: string;
  matched_terms: string[];
}

interface Source {
  id: string;
  name: string;
  status: string;
  mediaUrl: string;
  durationSeconds: number | null;
  preprocess: { status: string; progress: number };
  transcript: { start: number; end: number; text: string }[];
  shots: { index: number; start: number; end: number; thumbnailId: string }[];
  thumbnails: { id: string; time: number; url: string }[];
  diagnostics: { level: string; message: string }[];
}

const POLL_MS = 500;

export function mountSources(openDocument: (id: string) => Promise<void>) {
  const list = byId('sources');
  const form = byId<HTMLFormElement>('source-form');
  const status = byId('source-status');
  const bar = byId<HTMLProgressElement>('source-progress');
  const player = byId<HTMLVideoElement>('source-player');
  const transcript = byId('transcript');
  const shots = byId('shots');
  const title = byId('source-title');
  const clipForm = byId<HTMLFormElement>('clip-form');
  const clipStatus = byId('clip-status');
  const candidatesList = byId('candidates');
  let current: Source | null = null;

  const seek = (t: number) => {
    player.currentTime = t;
    void player.play().catch(() => undefined);
  };

  function show(s: Source): void {
    current = s;
    clipForm.hidden = s.status !== 'ready';
    fill(candidatesList);
    clipStatus.textContent = '';
    title.textContent = `${s.name}${s.durationSeconds ? ` (${clock(s.durationSeconds)})` : ''}`;
    // Same origin: the address path works wherever the page is served from.
    player.src = new URL(s.mediaUrl).pathname;
    fill(
      transcript,
      ...(s.transcript.length
        ? s.transcript.map((c) => h('li', {}, h('button', { type: 'button', class: 'cue', 'data-start': c.start, onclick: () => seek(c.start) }, h('span', { class: 'cue-time' }, clock(c.start)), ` ${c.text}`)))
        : [h('li', { class: 'hint' }, s.diagnostics.map((d) => d.message).join(' ') || 'No transcript.')]),
    );
    const thumbs = new Map(s.thumbnails.map((t) => [t.id, t]));
    fill(
      shots,
      ...s.shots.map((shot) => {
        const t = thumbs.get(shot.thumbnailId);
        return h('li', {}, h('button', { type: 'button', class: 'shot', onclick: () => seek(shot.start), 'aria-label': `Shot ${shot.index + 1} at ${clock(shot.start)}` }, t ? h('img', { src: new URL(t.url).pathname, alt: '' }) : null, h('span', {}, clock(shot.start))));
      }),
    );
  }

  async function openSource(id: string): Promise<void> {
    try {
      const { body } = await api<Source>('GET', `/api/sources/${id}`);
      bar.value = body.preprocess.progress;
      show(body);
    } catch (err) {
      status.textContent = `Could not open: ${describe(err)}`;
    }
  }

  async function preprocess(id: string): Promise<void> {
    await api('POST', `/api/sources/${id}/preprocess`);
    for (;;) {
      const { body } = await api<{ status: string; progress: number; diagnostics: { message: string }[] }>('GET', `/api/sources/${id}/preprocess`);
      bar.value = body.progress;
      bar.setAttribute('aria-valuetext', `${Math.round(body.progress * 100)} %`);
      status.textContent = `Preprocessing: ${body.status}, ${Math.round(body.progress * 100)} %`;
      status.dataset.status = body.status;
      if (body.status === 'complete' || body.status === 'failed') break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    await openSource(id);
    await load();
  }

  async function makeClip(c: Candidate, goal: string): Promise<void> {
    if (!current) return;
    const source = current;
    clipStatus.textContent = 'Making the clip document…';
    try {
      const { body: edges } = await api<{ start: number; end: number }>('POST', '/api/clips/candidates/refine', { json: { sourceId: source.id, start: c.start, end: c.end } });
      const { body: doc } = await api<{ id: string; name: string }>('POST', '/api/clips/documents', { json: { sourceId: source.id, start: edges.start, end: edges.end, name: `${source.name}: ${goal}`.slice(0, 200) } });
      clipStatus.textContent = `Clip document ${doc.name} made (${clock(edges.start)} to ${clock(edges.end)})`;
      clipStatus.dataset.document = doc.id;
      await openDocument(doc.id);
    } catch (err) {
      clipStatus.textContent = `No clip document: ${describe(err)}`;
    }
  }

  async function findClips(goal: string): Promise<void> {
    if (!current) return;
    clipStatus.textContent = `Looking for "${goal}"…`;
    try {
      const { body } = await api<{ candidates: Candidate[]; terms: string[]; reason?: string }>('POST', '/api/clips/candidates', { json: { sourceId: current.id, goal } });
      clipStatus.textContent = body.candidates.length ? `${body.candidates.length} candidate${body.candidates.length === 1 ? '' : 's'} for ${body.terms.join(', ')}` : `No candidates: ${body.reason ?? 'none found'}`;
      fill(
        candidatesList,
        ...body.candidates.map((c, i) =>
          h(
            'li',
            { class: 'candidate' },
            h('button', { type: 'button', onclick: () => seek(c.start), 'aria-label': `Play candidate ${i + 1} from ${clock(c.start)}` }, `${clock(c.start)}–${clock(c.end)}`),
            h('span', { class: 'score' }, ` score ${c.score.toFixed(2)} `),
            h('p', {}, c.text),
            h('button', { type: 'button', onclick: () => void makeClip(c, goal), 'aria-label': `Make clip document from candidate ${i + 1}` }, 'Make clip document'),
          ),
        ),
      );
    } catch (err) {
      clipStatus.textContent = `No candidates: ${describe(err)}`;
    }
  }

  async function load(): Promise<void> {
    const missing = missingScope('sources:read');
    if (missing) return fill(list, h('li', { class: 'hint' }, `Sources unavailable: ${missing}`));
    try {
      const { body } = await api<{ sources: Source[] }>('GET', '/api/sources?limit=50');
      fill(
        list,
        ...body.sources.map((s) =>
          h(
            'li',
            {},
            h('button', { type: 'button', onclick: () => void openSource(s.id), 'aria-label': `Open source ${s.name}` }, s.name),
            ` ${s.status} `,
            s.status === 'registered' || s.status === 'failed' ? h('button', { type: 'button', onclick: () => void preprocess(s.id) }, 'Preprocess') : null,
          ),
        ),
      );
    } catch (err) {
      fill(list, h('li', { class: 'hint' }, `Sources unavailable: ${describe(err)}`));
    }
  }

  clipForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const goal = (clipForm.elements.namedItem('clip-goal') as HTMLInputElement).value.trim();
    if (goal) void findClips(goal);
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const file = (form.elements.namedItem('source-file') as HTMLInputElement).files?.[0];
    if (!file) return;
    const subtitles = (form.elements.namedItem('source-subtitles') as HTMLInputElement).files?.[0];
    void (async () => {
      status.textContent = `Uploading ${file.name}…`;
      bar.value = 0;
      try {
        const fd = new FormData();
        fd.append('file', file, file.name);
        if (subtitles) fd.append('subtitles', subtitles, subtitles.name);
        const { body } = await api<Source>('POST', '/api/sources/upload', { form: fd });
        await load();
        await preprocess(body.id);
      } catch (err) {
        status.textContent = `Upload failed: ${describe(err)}`;
      }
    })();
  });
  return { load };
}
