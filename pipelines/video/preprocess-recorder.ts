import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import type { SourceRecord } from '../../domain/video/source.js';
import { preprocessEventSchema, preprocessRecorderGroupOf, preprocessStatusTopicOf, type PreprocessEvent, type PreprocessOutcome } from './preprocess-topics.js';
import { sourceKeys, type SourceStore } from './sources.js';
import { recordStatusEvents } from './topics.js';
import { readJson } from './worker.js';

/**
 * Records the preprocess workers' events in the source records, on the HTTP side (the records'
 * owner). Recording is idempotent: an event counts only for the job the record names, and a job
 * that reached complete or failed stays there, so a redelivered job or event changes nothing.
 * What a stale job left behind (its outcome, thumbnails the record does not name) is removed.
 */

const TERMINAL = new Set(['complete', 'failed']);

export async function startPreprocessRecorder(platform: Platform, sources: SourceStore, topic: string): Promise<Stoppable> {
  const { blobs } = platform;
  const log = platform.log.child({ consumer: 'sources.preprocess.status' });

  /** Deletes those of `thumbnails` that `keep` does not name. */
  const dropThumbnails = (sourceId: string, thumbnails: { id: string }[], keep: { id: string }[]) =>
    Promise.all(thumbnails.filter((t) => !keep.some((k) => k.id === t.id)).map((t) => blobs.delete(sourceKeys.thumbnail(sourceId, t.id))));

  async function dropStale(e: PreprocessEvent, record: SourceRecord | null): Promise<void> {
    const key = sourceKeys.outcome(e.sourceId, e.jobId);
    const outcome = await readJson<PreprocessOutcome>(platform, key);
    if (outcome?.status === 'complete') await dropThumbnails(e.sourceId, outcome.thumbnails, record?.thumbnails ?? []);
    await blobs.delete(key);
  }

  async function apply(e: PreprocessEvent): Promise<void> {
    const record = await sources.get(e.orgId, e.sourceId);
    if (!record || record.preprocess.jobId !== e.jobId) {
      // A job the source no longer names (deleted, or preprocessed again since): nothing of it is kept.
      if (TERMINAL.has(e.status)) await dropStale(e, record);
      return;
    }
    if (TERMINAL.has(record.preprocess.status)) return;
    if (e.status === 'running') {
      await sources.update({ ...record, status: 'preprocessing', preprocess: { status: 'running', progress: e.progress, jobId: e.jobId } });
      return;
    }
    const outcome = await readJson<PreprocessOutcome>(platform, sourceKeys.outcome(e.sourceId, e.jobId));
    if (!outcome || outcome.jobId !== e.jobId) {
      log.error({ sourceId: e.sourceId, jobId: e.jobId }, 'preprocess job reported finished without its stored outcome; skipped');
      return;
    }
    if (outcome.status === 'failed') {
      await sources.update({ ...record, status: 'failed', preprocess: { status: 'failed', progress: 0, jobId: e.jobId }, diagnostics: outcome.diagnostics });
    } else {
      const { jobId: _job, status: _status, ...found } = outcome;
      const { loudness: _previous, ...rest } = record;
      await sources.update({ ...rest, ...found, status: 'ready', preprocess: { status: 'complete', progress: 1, jobId: e.jobId } });
      // Thumbnails of an earlier preprocessing are no longer named by the record.
      await dropThumbnails(e.sourceId, record.thumbnails, outcome.thumbnails);
    }
    log.info({ sourceId: e.sourceId, jobId: e.jobId, status: outcome.status }, 'source preprocessing recorded');
  }

  return recordStatusEvents({
    platform,
    groupId: preprocessRecorderGroupOf(topic),
    topic: preprocessStatusTopicOf(topic),
    schema: preprocessEventSchema,
    what: 'preprocess',
    record: apply,
  });
}
