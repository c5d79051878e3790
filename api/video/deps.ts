import type { Platform } from '../../infra/platform.js';
import type { KeyRing } from '../http/auth.js';
import type { AssetStore } from '../../pipelines/video/assets.js';
import type { JobStore } from '../../pipelines/video/job-store.js';
import type { RenderJobs, Templates } from '../../pipelines/video/ports.js';
import type { Documents } from '../../pipelines/video/documents.js';
import type { SourceStore } from '../../pipelines/video/sources.js';
import type { Previews } from '../../pipelines/video/previews.js';
import type { Clips } from '../../pipelines/video/clips.js';

/** What the video routes need; services/video.ts builds it. */
export interface VideoApiDeps {
  platform: Platform;
  keys: KeyRing;
  jobs: RenderJobs;
  templates: Templates;
  assets: AssetStore;
  /** Queue depth and workers (GET /api/queue). */
  store: JobStore;
  documents: Documents;
  sources: SourceStore;
  previews: Previews;
  clips: Clips;
}
