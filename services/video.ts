import os from 'node:os';
import type { Platform } from '../infra/platform.js';
import { servesHttp, type Role, type ServiceModule } from './types.js';
import { videoRouter } from '../api/video/routes.js';
import { principalsMigration } from '../pipelines/video/principal-store.js';
import { assetIndexMigration, createAssetStore, type AssetStore } from '../pipelines/video/assets.js';
import { createJobStore, jobStoreMigration, jobUsageMigration, type JobStore } from '../pipelines/video/job-store.js';
import type { RenderJobs, Templates } from '../pipelines/video/ports.js';
import { createRenderJobs } from '../pipelines/video/render-jobs.js';
import { startStatusRecorder } from '../pipelines/video/status-recorder.js';
import { createTemplateStore, templateStoreMigration } from '../pipelines/video/template-store.js';
import { createDocumentStore, documentStoreMigration } from '../pipelines/video/document-store.js';
import { createDocuments, type Documents } from '../pipelines/video/documents.js';
import { createSourceStore, sourceStoreMigration, type SourceStore } from '../pipelines/video/sources.js';
import { createClips, type Clips } from '../pipelines/video/clips.js';
import { DEFAULT_RENDER_TOPIC, renderTopics } from '../pipelines/video/topics.js';
import { startRenderWorker } from '../pipelines/video/worker.js';
import { startPreprocessWorker } from '../pipelines/video/preprocess-worker.js';
import { DEFAULT_PREPROCESS_TOPIC, preprocessTopics } from '../pipelines/video/preprocess-topics.js';
import { startPreprocessRecorder } from '../pipelines/video/preprocess-recorder.js';
import { createPreviews, type Previews } from '../pipelines/video/previews.js';
import { pocketsphinxInstalled, pocketsphinxRecogniser } from '../pipelines/video/pocketsphinx.js';

export interface VideoParts {
  jobs: RenderJobs;
  templates: Templates;
  assets: AssetStore;
  store: JobStore;
  documents: Documents;
  sources: SourceStore;
  clips: Clips;
  previews: Previews;
}

/** One set of stores per platform, shared by the HTTP routes and any other caller (the MCP tools). */
const parts = new WeakMap<Platform, VideoParts>();
export function videoParts(platform: Platform): VideoParts {
  let p = parts.get(platform);
  if (!p) {
    const store = createJobStore(platform.analytics, platform.clock);
    const templates = createTemplateStore(platform.analytics, platform.clock);
    const assets = createAssetStore(platform.blobs, platform.analytics, () => platform.clock.now());
    const sources = createSourceStore(platform.blobs, platform.analytics, () => platform.clock.now());
    const jobs = createRenderJobs({ platform, store, templates, assets, sources, topic: platform.config.RENDER_TOPIC });
    const documents = createDocuments({ store: createDocumentStore(platform.analytics, platform.clock), windows: platform.windows, jobs, clock: platform.clock });
    const clips = createClips({ sources, documents });
    // One ffmpeg at a time for stills: a preview is a frame or a few hundred, never a film.
    const previews = createPreviews({ blobs: platform.blobs, assets, sources, concurrency: 1, maxQueuedPerOrg: platform.config.PREVIEW_MAX_QUEUED_PER_ORG, cacheSize: 256, timeoutMs: 20_000 });
    p = { jobs, templates, assets, store, documents, sources, clips, previews };
    parts.set(platform, p);
  }
  return p;
}

/**
 * Video production (Document 2): compiler, moods, templates, assets, rendering, documents (versions
 * in `video_document_versions`, annotations, edit locks as window-store holds), and credentials
 * (database principals in `video_principals`, bearer tokens, OAuth, the MCP transport). Renders are
 * jobs on RENDER_TOPIC (`render.jobs`) taken by the render worker pool (role `render`); workers
 * report on `<topic>.status`, which every process serving HTTP records in its job store. Sources are
 * preprocessed by jobs on PREPROCESS_TOPIC (`sources.preprocess`), taken by the preprocess worker
 * pool (role `preprocess`), which reports the same way on `<topic>.status` to the source records.
 */
/** ffmpeg threads per render: RENDER_THREADS, else half the cores where HTTP is served too (its requests keep the rest), else every core (0). */
export const renderThreads = (configured: number | undefined, role: Role, cores = os.availableParallelism()): number =>
  configured ?? (servesHttp(role) ? Math.max(1, Math.floor(cores / 2)) : 0);

/** VIDEO_ASR as the preprocess workers' recogniser, or why there is none. */
function speechRecognition(setting: 'off' | 'pocketsphinx' | undefined) {
  if (setting === 'off') return { asrMissing: 'is off (VIDEO_ASR=off)' };
  if (!pocketsphinxInstalled()) return { asrMissing: 'is unavailable: pocketsphinx_continuous is not installed' };
  return { recogniser: pocketsphinxRecogniser() };
}

export const videoService: ServiceModule = {
  name: 'video',
  topics: [...renderTopics(DEFAULT_RENDER_TOPIC), ...preprocessTopics(DEFAULT_PREPROCESS_TOPIC)],
  migrations: [jobStoreMigration, templateStoreMigration, principalsMigration, jobUsageMigration, assetIndexMigration, documentStoreMigration, sourceStoreMigration],
  async create({ platform, keys, role }) {
    const config = platform.config;
    if (config.RENDER_TOPIC !== DEFAULT_RENDER_TOPIC) await platform.bus.ensureTopics(renderTopics(config.RENDER_TOPIC));
    if (config.PREPROCESS_TOPIC !== DEFAULT_PREPROCESS_TOPIC) await platform.bus.ensureTopics(preprocessTopics(config.PREPROCESS_TOPIC));
    const p = videoParts(platform);
    const recorders = servesHttp(role) ? [await startStatusRecorder(platform, p.store, config.RENDER_TOPIC), await startPreprocessRecorder(platform, p.sources, config.PREPROCESS_TOPIC)] : [];
    return {
      router: videoRouter({ platform, keys, ...p }),
      workers: [
        {
          role: 'render',
          name: 'video.render',
          start: () =>
            startRenderWorker({
              platform,
              assets: p.assets,
              sources: p.sources,
              topic: config.RENDER_TOPIC,
              concurrency: config.RENDER_CONCURRENCY,
              stallMs: config.RENDER_STALL_SECONDS * 1000,
              encode: { preset: config.RENDER_PRESET, crf: config.RENDER_CRF, threads: renderThreads(config.RENDER_THREADS, role) },
            }),
        },
        {
          role: 'preprocess',
          name: 'video.preprocess',
          start: () => startPreprocessWorker({ platform, topic: config.PREPROCESS_TOPIC, concurrency: config.PREPROCESS_CONCURRENCY, speechParts: os.availableParallelism(), ...speechRecognition(config.VIDEO_ASR) }),
        },
      ],
      close: async () => void (await Promise.all(recorders.map((r) => r.stop()))),
    };
  },
};
