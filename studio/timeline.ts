import { apiBlob, describe } from './api.js';
import { byId, clock, fill, h } from './dom.js';
import type { Editor } from './editor.js';
import { shared, update, watch } from './state.js';

/**
 * The film as a timeline of scenes sized by their duration (from the render graph), a cursor on it
 * (click a scene, drag the slider or use its arrow keys), and a still of the frame under the cursor
 * from POST /api/preview.
 */

const PREVIEW_DEBOUNCE_MS = 250;

export function mountTimeline(editor: Editor): void {
  const track = byId('timeline');
  const slider = byId<HTMLInputElement>('cursor');
  const label = byId('cursor-label');
  const still = byId<HTMLImageElement>('still');
  const status = byId('still-status');
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: AbortController | undefined;
  let url: string | undefined;

  function drawTrack(): void {
    const g = shared.graph;
    track.classList.toggle('stale', shared.stale);
    if (!g) {
      fill(track, h('p', { class: 'hint' }, 'The timeline appears once the script compiles.'));
      return;
    }
    const total = g.film.durationSeconds;
    slider.max = String(total);
    slider.step = String(1 / g.film.fps);
    fill(
      track,
      ...g.scenes.map((s) =>
        h(
          'button',
          {
            type: 'button',
            class: 'scene',
            style: `flex-grow:${s.duration};background:${s.background.color}`,
            'data-scene': s.index,
            'aria-label': `Scene ${s.index + 1}, ${s.name}, ${s.duration} seconds from ${clock(s.start)}`,
            onclick: () => {
              // The middle of the scene: its text has entered by then.
              update('cursor', Math.round((s.start + s.duration / 2) * 1000) / 1000);
              editor.gotoLine(s.line);
            },
          },
          h('span', { class: 'scene-name' }, s.name),
          h('span', { class: 'scene-length' }, `${s.duration}s`),
        ),
      ),
      h('div', { class: 'playhead', style: `left:${total > 0 ? (Math.min(shared.cursor, total) / total) * 100 : 0}%`, 'aria-hidden': 'true' }),
    );
  }

  function schedulePreview(): void {
    clearTimeout(timer);
    timer = setTimeout(() => void loadStill(), PREVIEW_DEBOUNCE_MS);
  }

  async function loadStill(): Promise<void> {
    const g = shared.graph;
    if (!g || shared.stale) return;
    inFlight?.abort();
    const controller = (inFlight = new AbortController());
    const at = Math.min(shared.cursor, g.film.durationSeconds);
    status.textContent = `Drawing ${clock(at)}…`;
    try {
      const blob = await apiBlob('POST', '/api/preview', { source: shared.compiledSource, at, format: 'jpeg', variables: shared.variables }, controller.signal);
      if (url) URL.revokeObjectURL(url);
      url = URL.createObjectURL(blob);
      still.src = url;
      still.alt = `Preview of the film at ${clock(at)}`;
      still.dataset.at = String(at);
      status.textContent = `Frame at ${clock(at)}`;
    } catch (err) {
      if (controller.signal.aborted) return;
      status.textContent = `No preview: ${describe(err)}`;
    }
  }

  slider.addEventListener('input', () => update('cursor', Number(slider.value)));
  let first = true;
  watch(['graph', 'stale'], () => {
    const g = shared.graph;
    // The first film opens on the middle of its first scene, where its text has entered.
    if (g && first && g.scenes[0]) update('cursor', Math.round((g.scenes[0].duration / 2) * 1000) / 1000);
    else if (g && shared.cursor > g.film.durationSeconds) update('cursor', 0);
    first = !g;
    drawTrack();
    schedulePreview();
  });
  watch(['cursor'], () => {
    slider.value = String(shared.cursor);
    label.textContent = clock(shared.cursor);
    drawTrack();
    schedulePreview();
  });
  drawTrack();
}
