import { api, describe } from './api.js';
import { byId, fill, h } from './dom.js';
import type { Editor } from './editor.js';
import { mediaReady } from './media.js';
import { shared } from './state.js';

/**
 * Rendering: queue the script (or a template), follow the job's progress by polling its status
 * until it is complete or failed, list the organization's recent jobs and the queue, and play a
 * finished MP4 (range requests, through the media worker).
 */

interface Job {
  jobId: string;
  status: 'queued' | 'rendering' | 'complete' | 'failed';
  progress: number;
  output?: { url: string; durationSeconds: number; width: number; height: number };
  errors?: { code: string; message: string }[];
  createdAt: string;
}

const POLL_MS = 500;

export function mountRender(editor: Editor) {
  const button = byId<HTMLButtonElement>('render-button');
  const quick = byId<HTMLInputElement>('render-preview');
  const bar = byId<HTMLProgressElement>('render-progress');
  const status = byId('render-status');
  const jobs = byId('jobs');
  const queue = byId('queue-summary');
  const player = byId<HTMLVideoElement>('player');

  function showProgress(job: Job): void {
    const pct = Math.round(job.progress * 100);
    bar.value = job.progress;
    bar.setAttribute('aria-valuetext', `${pct} %`);
    status.textContent =
      job.status === 'failed' ? `Failed: ${job.errors?.map((e) => e.message).join('; ') ?? 'unknown error'}` : `${job.status === 'complete' ? 'Complete' : job.status === 'queued' ? 'Queued' : 'Rendering'}: ${pct} %`;
    status.dataset.status = job.status;
  }

  async function play(job: Job): Promise<void> {
    await mediaReady();
    player.src = `/api/video/${job.jobId}`;
    player.setAttribute('aria-label', `Rendered video ${job.jobId}`);
    player.dataset.job = job.jobId;
  }

  async function refresh(): Promise<void> {
    try {
      const [{ body: list }, { body: q }] = await Promise.all([api<{ jobs: Job[] }>('GET', '/api/render?limit=10'), api<{ depth: number; workers: unknown[] }>('GET', '/api/queue')]);
      queue.textContent = `${q.depth} job${q.depth === 1 ? '' : 's'} queued, ${q.workers.length} worker${q.workers.length === 1 ? '' : 's'}`;
      fill(
        jobs,
        ...list.jobs.map((j) =>
          h(
            'li',
            {},
            h('span', { class: `job-status ${j.status}` }, j.status),
            ` ${new Date(j.createdAt).toLocaleTimeString()} · ${Math.round(j.progress * 100)} % `,
            j.status === 'complete' ? h('button', { type: 'button', onclick: () => void play(j) }, 'Play') : null,
          ),
        ),
      );
    } catch (err) {
      queue.textContent = `Queue unavailable: ${describe(err)}`;
    }
  }

  /** Follows a queued job to its end. */
  async function follow(jobId: string): Promise<void> {
    button.disabled = true;
    try {
      for (;;) {
        const { body: job } = await api<Job>('GET', `/api/render/${jobId}`);
        showProgress(job);
        if (job.status === 'complete') {
          await play(job);
          break;
        }
        if (job.status === 'failed') break;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    } catch (err) {
      status.textContent = `Lost the job: ${describe(err)}`;
    } finally {
      button.disabled = false;
      void refresh();
    }
  }

  async function submit(path: string, body: unknown): Promise<void> {
    bar.value = 0;
    status.textContent = 'Submitting…';
    try {
      const { body: queued } = await api<{ jobId: string }>('POST', path, { json: body });
      await follow(queued.jobId);
    } catch (err) {
      status.textContent = `Not queued: ${describe(err)}`;
    }
  }

  button.addEventListener('click', () => void submit('/api/render', { source: editor.text(), preview: quick.checked, variables: shared.variables }));
  return {
    refresh,
    renderTemplate: (template: string) => submit('/api/render/template', { template, variables: shared.variables, preview: quick.checked }),
  };
}

export type RenderPanel = ReturnType<typeof mountRender>;
