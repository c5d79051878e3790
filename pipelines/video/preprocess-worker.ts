import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Platform } from '../../infra/platform.js';
import type { Stoppable } from '../../infra/lifecycle.js';
import type { TranscriptChunk } from '../../domain/video/source.js';
import { parseSubtitles } from '../../domain/video/subtitles.js';
import { splitAtSilences } from '../../domain/video/speech-segments.js';
import type { SpeechRecogniser } from './ports.js';
import { analyseSource } from './analyse-source.js';
import { preprocessMessageSchema, preprocessStatusTopicOf, preprocessWorkerGroupOf, type PreprocessEvent, type PreprocessMessage, type PreprocessOutcome } from './preprocess-topics.js';
import { sourceKeys } from './sources.js';
import { encodeJson, parseJson } from './topics.js';
import { readJson, semaphore } from './worker.js';

/**
 * The preprocess worker pool: takes jobs off PREPROCESS_TOPIC, analyses the media, stores the
 * thumbnails and the outcome in the blob store under keys fixed by the job id, and reports on the
 * status topic (preprocess-topics.ts); it writes no record itself. A job's offset is committed only
 * once its outcome is stored and its final event sent: a worker killed mid-job leaves it to be
 * delivered again, and a rerun that finds the stored outcome reports it instead of running again.
 */

const thumbId = (jobId: string, index: number) => `th_${createHash('sha256').update(`${jobId}/${index}`).digest('hex').slice(0, 16)}`;

/** The transcript in order of preference: the embedded track, else the sidecar file uploaded with the source. */
async function transcriptOf(platform: Platform, sourceId: string, embedded: TranscriptChunk[] | undefined): Promise<{ chunks: TranscriptChunk[]; origin?: string }> {
  if (embedded?.length) return { chunks: embedded, origin: 'embedded subtitle track' };
  const sidecar = await platform.blobs.get(sourceKeys.subtitles(sourceId));
  if (!sidecar) return { chunks: [] };
  const parts: Buffer[] = [];
  for await (const c of sidecar.body) parts.push(c as Buffer);
  return { chunks: parseSubtitles(Buffer.concat(parts).toString('utf8')), origin: 'sidecar subtitles' };
}

/** ffmpeg's reason, without the command line execFile puts first. */
const ffmpegReason = (err: unknown) => (err as Error).message.split('\n').find((l) => l.trim() && !l.startsWith('Command failed')) ?? 'ffmpeg failed';

/**
 * The worker pool's options: `recogniser` absent means no speech recognition (off, or not
 * installed: `asrMissing` says which, for the diagnostic); `speechParts` the segments recognised
 * side by side.
 */
export interface PreprocessWorkerOptions {
  platform: Platform;
  topic: string;
  concurrency: number;
  recogniser?: SpeechRecogniser;
  asrMissing?: string;
  speechParts: number;
}

export async function startPreprocessWorker(opts: PreprocessWorkerOptions): Promise<Stoppable> {
  const { platform } = opts;
  const log = platform.log.child({ worker: 'preprocess' });
  const workerId = `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const statusTopic = preprocessStatusTopicOf(opts.topic);

  const report = (m: PreprocessMessage, status: PreprocessEvent['status'], progress: number) => {
    const e: PreprocessEvent = { jobId: m.jobId, orgId: m.orgId, sourceId: m.sourceId, status, progress, workerId, at: platform.clock.now() };
    return platform.bus.send(statusTopic, [{ key: m.sourceId, value: encodeJson(e) }]);
  };
  /** The outcome first, then the event naming it: the recorder never reads an outcome that is not there. */
  async function finish(m: PreprocessMessage, outcome: PreprocessOutcome): Promise<void> {
    await platform.blobs.put(sourceKeys.outcome(m.sourceId, m.jobId), encodeJson(outcome), 'application/json');
    await report(m, outcome.status, outcome.status === 'complete' ? 1 : 0);
  }

  async function analysed(m: PreprocessMessage, file: string, dir: string): Promise<PreprocessOutcome> {
    let analysis;
    try {
      analysis = await analyseSource(file, dir);
    } catch (err) {
      return { jobId: m.jobId, status: 'failed', diagnostics: [{ level: 'error', code: 'unreadable_media', message: `the media could not be analysed: ${ffmpegReason(err)}`.slice(0, 500) }] };
    }
    await report(m, 'running', 0.7);
    // Ids fixed by the job: a rerun of the job overwrites its own thumbnails.
    const thumbnails = analysis.shots.map((s, index) => ({ id: thumbId(m.jobId, index), time: s.thumbTime }));
    for (const [index, s] of analysis.shots.entries()) {
      await platform.blobs.put(sourceKeys.thumbnail(m.sourceId, thumbnails[index]!.id), await readFile(s.thumbnail), 'image/jpeg');
    }
    let transcript = await transcriptOf(platform, m.sourceId, analysis.embeddedTranscript);
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
    return {
      jobId: m.jobId,
      status: 'complete',
      durationSeconds: analysis.durationSeconds,
      width: analysis.width,
      height: analysis.height,
      transcript: transcript.chunks,
      shots: analysis.shots.map((s, index) => ({ index, start: s.start, end: s.end, thumbnailId: thumbnails[index]!.id })),
      thumbnails,
      silences: analysis.silences,
      ...(analysis.loudness ? { loudness: analysis.loudness } : {}),
      diagnostics,
    };
  }

  async function preprocess(m: PreprocessMessage): Promise<void> {
    const stored = await readJson<PreprocessOutcome>(platform, sourceKeys.outcome(m.sourceId, m.jobId));
    if (stored) {
      // A redelivery of a job that got that far: its outcome is reported again, not made again.
      await report(m, stored.status, stored.status === 'complete' ? 1 : 0);
      return;
    }
    // The source was deleted: nothing to do, and nobody to tell.
    if (!(await platform.blobs.exists(sourceKeys.media(m.sourceId)))) return void log.info({ sourceId: m.sourceId, jobId: m.jobId }, 'source gone; preprocess job dropped');
    await report(m, 'running', 0.05);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-preprocess-'));
    try {
      const media = await platform.blobs.get(sourceKeys.media(m.sourceId));
      if (!media) return;
      const file = path.join(dir, 'media');
      await pipeline(media.body, createWriteStream(file));
      const outcome = await analysed(m, file, dir);
      await finish(m, outcome);
      if (outcome.status === 'complete') log.info({ sourceId: m.sourceId, jobId: m.jobId, shots: outcome.shots.length, chunks: outcome.transcript.length }, 'source preprocessed');
      else log.warn({ sourceId: m.sourceId, jobId: m.jobId, diagnostics: outcome.diagnostics }, 'source preprocessing failed');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  const limited = semaphore(opts.concurrency);
  return platform.bus.subscribe({
    groupId: preprocessWorkerGroupOf(opts.topic),
    topics: [opts.topic],
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
}
