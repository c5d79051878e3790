import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { sceneCuts } from '../../domain/video/scene-cuts.js';
import type { Loudness, Silence, SourceDiagnostic, TranscriptChunk } from '../../domain/video/source.js';
import { parseSubtitles } from '../../domain/video/subtitles.js';
import { probeMedia } from './probe.js';

const run = promisify(execFile);
const BIG = { maxBuffer: 256 * 1024 * 1024 };
const round = (n: number) => Math.round(n * 1000) / 1000;

export interface Analysis {
  durationSeconds: number | null;
  width: number | null;
  height: number | null;
  /** Shots as [start, end] with a thumbnail JPEG file each, from inside the shot. */
  shots: { start: number; end: number; thumbnail: string; thumbTime: number }[];
  silences: Silence[];
  loudness?: Loudness;
  /** From an embedded subtitle track; undefined when the media has none. */
  embeddedTranscript?: TranscriptChunk[];
  hasAudio: boolean;
  diagnostics: SourceDiagnostic[];
}

/** The silence and loudness lines of one ffmpeg pass's log. */
export function parseAudioLog(log: string, duration: number | null): { silences: Silence[]; loudness?: Loudness } {
  const silences: Silence[] = [];
  let open: number | undefined;
  for (const m of log.matchAll(/silence_(start|end): (-?[\d.]+)/g)) {
    // silencedetect can run a frame past the end: a silence lies within the media.
    const t = Math.min(Math.max(0, Number(m[2])), duration ?? Infinity);
    if (m[1] === 'start') open = t;
    else if (open !== undefined) {
      silences.push({ start: round(open), end: round(t) });
      open = undefined;
    }
  }
  if (open !== undefined && duration !== null) silences.push({ start: round(open), end: round(duration) });
  const summary = log.slice(log.lastIndexOf('Summary:'));
  const integrated = /I:\s+(-?[\d.]+) LUFS/.exec(summary);
  const range = /LRA:\s+(-?[\d.]+) LU/.exec(summary);
  const peak = /Peak:\s+(-?[\d.]+) dBFS/.exec(summary);
  const loudness = integrated && range ? { integratedLufs: Number(integrated[1]), rangeLu: Number(range[1]), ...(peak ? { truePeakDbfs: Number(peak[1]) } : {}) } : undefined;
  return { silences, ...(loudness ? { loudness } : {}) };
}

/** Per-frame scene scores written by metadata=print to a file. */
function parseScores(text: string): { time: number; score: number }[] {
  const out: { time: number; score: number }[] = [];
  let time: number | undefined;
  for (const line of text.split('\n')) {
    const t = /pts_time:(-?[\d.]+)/.exec(line);
    if (t) time = Number(t[1]);
    const s = /lavfi\.scene_score=([\d.]+)/.exec(line);
    if (s && time !== undefined) out.push({ time, score: Number(s[1]) });
  }
  return out;
}

/**
 * Analyses a media file in `dir` (scratch space): ffprobe, then one decoding pass that scores
 * scene changes on a downscaled copy of the picture while detecting silences and measuring
 * loudness on the sound, then a thumbnail per shot and the embedded subtitle track if any.
 */
export async function analyseSource(file: string, dir: string, threads = 0): Promise<Analysis> {
  const diagnostics: SourceDiagnostic[] = [];
  const { durationSeconds, streams } = await probeMedia(file);
  const video = streams.find((s) => s.type === 'video');
  const hasAudio = streams.some((s) => s.type === 'audio');
  const hasSubtitles = streams.some((s) => s.type === 'subtitle');
  if (durationSeconds === null) diagnostics.push({ level: 'warning', code: 'duration_unknown', message: 'ffprobe reported no duration' });

  const scoresFile = path.join(dir, 'scores.txt');
  const graphs: string[] = [];
  const maps: string[] = [];
  if (video) {
    graphs.push(`[0:v:0]scale=160:-2,select='gte(scene,0)',metadata=print:key=lavfi.scene_score:file=${scoresFile}[v]`);
    maps.push('-map', '[v]');
  }
  if (hasAudio) {
    graphs.push('[0:a:0]silencedetect=noise=-35dB:duration=0.3,ebur128=peak=true[a]');
    maps.push('-map', '[a]');
  }
  let log = '';
  if (graphs.length) {
    const pass = await run('ffmpeg', ['-hide_banner', '-nostats', '-threads', String(threads), '-i', file, '-filter_complex', graphs.join(';'), ...maps, '-f', 'null', '-'], BIG);
    log = pass.stderr;
  }
  const audio = hasAudio ? parseAudioLog(log, durationSeconds) : { silences: [] };
  if (!hasAudio) diagnostics.push({ level: 'info', code: 'no_audio', message: 'the media has no audio stream: no loudness, silences or speech' });
  else if (!audio.loudness) diagnostics.push({ level: 'warning', code: 'loudness_unmeasured', message: 'ebur128 gave no integrated loudness' });

  const shots: Analysis['shots'] = [];
  if (video && durationSeconds !== null) {
    const { cuts } = sceneCuts(parseScores(await readFile(scoresFile, 'utf8').catch(() => '')));
    const bounds = [0, ...cuts.filter((c) => c < durationSeconds), durationSeconds];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const [start, end] = [bounds[i]!, bounds[i + 1]!];
      const thumbTime = round(start + (end - start) / 2);
      const thumbnail = path.join(dir, `thumb-${i}.jpg`);
      await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-ss', String(thumbTime), '-i', file, '-frames:v', '1', '-vf', 'scale=320:-2', '-q:v', '4', '-y', thumbnail]);
      shots.push({ start: round(start), end: round(end), thumbnail, thumbTime });
    }
  } else if (!video) {
    diagnostics.push({ level: 'info', code: 'no_video', message: 'the media has no video stream: no shots or thumbnails' });
  }

  let embeddedTranscript: TranscriptChunk[] | undefined;
  if (hasSubtitles) {
    try {
      embeddedTranscript = parseSubtitles((await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', file, '-map', '0:s:0', '-f', 'webvtt', '-'], BIG)).stdout);
    } catch (err) {
      diagnostics.push({ level: 'warning', code: 'subtitle_track_unreadable', message: `the embedded subtitle track could not be read: ${(err as Error).message.split('\n')[0]}` });
    }
  }
  return { durationSeconds, width: video?.width ?? null, height: video?.height ?? null, shots, silences: audio.silences, ...(audio.loudness ? { loudness: audio.loudness } : {}), ...(embeddedTranscript ? { embeddedTranscript } : {}), hasAudio, diagnostics };
}
