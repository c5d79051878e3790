import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { TopicSpec } from '../../infra/bus/types.js';
import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import type { SourceRecord, TranscriptChunk } from '../../domain/video/source.js';
import { parseSubtitles } from '../../domain/video/subtitles.js';
import { splitAtSilences } from '../../domain/video/speech-segments.js';
import type { SpeechRecogniser } from './ports.js';
import { analyseSource } from './analyse-source.js';
import { sourceKeys, type SourceStore } from './sources.js';
import { encodeJson, parseJson } from './topics.js';
import { semaphore } from './worker.js';

/**
 * Preprocessing jobs on `sources.preprocess` (one message per job, keyed by source), taken by the
 * preprocess worker pool. A job's offset is committed only once its record is written complete or
 * failed: a worker killed mid-job leaves it to be delivered again. A job that is no longer the
 * source's latest, or whose record is already complete, does nothing, so a job completes once;
 * thumbnail ids derive from the job id, so a rerun overwrites its own blobs.
 */

export const PREPROCESS_TOPIC = 'sources.preprocess';
export const preprocessTopics: TopicSpec[] = [{ topic: PREPROCESS_TOPIC, partitions: 6 }];

export const preprocessMessageSchema = z.object({ jobId: z.string().min(1), orgId: z.string().min(1), sourceId: z.string().min(1) });
export type PreprocessMessage = z.infer<typeof preprocessMessageSchema>;

export const queuePreprocess = (platform: Platform, m: PreprocessMessage) => platform.bus.send(PREPROCESS_TOPIC, [{ key: m.sourceId, value: encodeJson(m) }]);

const thumbId = (jobId: string, index: number) => `th_${createHash('sha256').update(`${jobId}/${index}`).digest('hex').slice(0, 16)}`;

/** The transcript in order of preference: the embedded track, else the sidecar file. */
async function transcriptOf(record: SourceRecord, embedded: TranscriptChunk[] | undefined, sources: SourceStore): Promise<{ chunks: TranscriptChunk[]; origin?: string }> {
  if (embedded?.length) return { chunks: embedded, origin: 'embedded subtitle track' };
  if (record.hasSubtitles) {
    const sidecar = await sources.openSubtitles(record.id);
    if (sidecar) {
      const parts: Buffer[] = [];
      for await (const c of sidecar.body) parts.push(c as Buffer);
      return { chunks: parseSubtitles(Buffer.concat(parts).toString('utf8')), origin: 'sidecar subtitles' };
    }
  }
  return { chunks: [] };
}

/**
 * The worker pool's options: `recogniser` absent means no speech recognition (off, or not
 * installed: `asrMissing` says which, for the diagnostic); `speechParts` the segments recognised
 * side by side.
 */
export interface PreprocessWorkerOptions {
  platform: Platform;
  sources: SourceStore;
  concurrency: number;
  recogniser?: SpeechRecogniser;
  asrMissing?: string;
  speechParts: number;
}

export async function startPreprocessWorker(opts: PreprocessWorkerOptions): Promise<Stoppable> {
  const { platform, sources } = opts;
  const log = platform.log.child({ worker: 'preprocess' });

  async function preprocess(m: PreprocessMessage): Promise<void> {
    const current = await sources.get(m.orgId, m.sourceId);
    if (!current || current.preprocess.jobId !== m.jobId || current.preprocess.status === 'complete' || current.preprocess.status === 'failed') return;
    const progress = (record: SourceRecord, fraction: number) => sources.update({ ...record, status: 'preprocessing', preprocess: { status: 'running', progress: fraction, jobId: m.jobId } });
    await progress(current, 0.05);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-preprocess-'));
    try {
      const media = await sources.openMedia(m.sourceId);
      if (!media) return;
      const file = path.join(dir, 'media');
      await pipeline(media.body, createWriteStream(file));
      let analysis;
      try {
        analysis = await analyseSource(file, dir);
      } catch (err) {
        const message = `the media could not be analysed: ${(err as Error).message.split('\n').find((l) => l.trim() && !l.startsWith('Command failed')) ?? 'ffmpeg failed'}`.slice(0, 500);
        await sources.update({ ...current, status: 'failed', preprocess: { status: 'failed', progress: 0, jobId: m.jobId }, diagnostics: [{ level: 'error', code: 'unreadable_media', message }] });
        return;
      }
      await progress(current, 0.7);
      const thumbnails = analysis.shots.map((s, index) => ({ id: thumbId(m.jobId, index), time: s.thumbTime }));
      for (const [index, s] of analysis.shots.entries()) {
        await platform.blobs.put(sourceKeys.thumbnail(m.sourceId, thumbnails[index]!.id), await readFile(s.thumbnail), 'image/jpeg');
      }
      let transcript = await transcriptOf(current, analysis.embeddedTranscript, sources);
      const diagnostics = [...analysis.diagnostics];
      if (!transcript.origin && analysis.hasAudio && analysis.durationSeconds !== null && opts.recogniser) {
        try {
          const segments = splitAtSilences(analysis.durationSeconds, analysis.silences, opts.speechParts);
          transcript = { chunks: await opts.recogniser.recognise(file, segments), origin: `speech recognition (${opts.recogniser.name})` };
          diagnostics.push({ level: 'info', code: 'transcript_recognised', message: `the transcript was recognised from speech by ${opts.recogniser.name}; words carry timings` });
        } catch (err) {
          diagnostics.push({ level: 'error', code: 'speech_recognition_failed', message: `speech recognition failed: ${(err as Error).message}`.slice(0, 500) });
        }
      } else if (!transcript.origin && analysis.hasAudio) {
        diagnostics.push({ level: 'warning', code: 'no_transcript', message: `no embedded subtitle track and no sidecar subtitles; speech recognition ${opts.asrMissing ?? 'is not available'}` });
      }
      await sources.update({
        ...current,
        status: 'ready',
        durationSeconds: analysis.durationSeconds,
        width: analysis.width,
        height: analysis.height,
        preprocess: { status: 'complete', progress: 1, jobId: m.jobId },
        transcript: transcript.chunks,
        shots: analysis.shots.map((s, index) => ({ index, start: s.start, end: s.end, thumbnailId: thumbnails[index]!.id })),
        thumbnails,
        silences: analysis.silences,
        ...(analysis.loudness ? { loudness: analysis.loudness } : {}),
        diagnostics,
      });
      // Thumbnails of an earlier preprocessing are no longer named by the record.
      await Promise.all(current.thumbnails.filter((t) => !thumbnails.some((n) => n.id === t.id)).map((t) => platform.blobs.delete(sourceKeys.thumbnail(m.sourceId, t.id))));
      log.info({ sourceId: m.sourceId, jobId: m.jobId, shots: thumbnails.length, chunks: transcript.chunks.length }, 'source preprocessed');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  const limited = semaphore(opts.concurrency);
  const sub = await platform.bus.subscribe({
    groupId: `${PREPROCESS_TOPIC}.workers`,
    topics: [PREPROCESS_TOPIC],
    concurrency: opts.concurrency,
    eachBatch: async (batch) => {
      await Promise.all(
        batch.messages.map((msg) => {
          const parsed = preprocessMessageSchema.safeParse(parseJson(msg.value));
          if (!parsed.success) {
            log.error({ offset: msg.offset, partition: msg.partition, reason: parsed.error.message }, 'preprocess message is not a job; skipped');
            return Promise.resolve();
          }
          return limited(() => preprocess(parsed.data));
        }),
      );
    },
  });
  return sub;
}
