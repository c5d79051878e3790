import ffmpeg from 'fluent-ffmpeg';
import type { ChildProcess } from 'node:child_process';
import { ffmpegArgs, type AssetFile, type EncodeOptions, type SourceFile } from '../../domain/video/ffmpeg-args.js';
import type { RenderGraph } from '../../domain/video/render-graph.js';

/**
 * Runs ffmpeg (through fluent-ffmpeg, Debian's binary on the PATH) on a compiled film and reports
 * progress from ffmpeg's own `-progress` output (the encoded time, on stdout), then reads the
 * file's duration and frame size back with ffprobe.
 */

export interface RenderedFile {
  durationSeconds: number;
  width: number;
  height: number;
}

export class RenderFailedError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export interface RenderFilmOptions {
  graph: RenderGraph;
  assets: Readonly<Record<string, AssetFile>>;
  sources?: Readonly<Record<string, SourceFile>>;
  output: string;
  encode: Partial<EncodeOptions>;
  /** Fraction done, 0 to 1, as ffmpeg reports it. */
  onProgress: (fraction: number) => void;
  /** Removed from error messages (the job's scratch directory). */
  scrub: string;
  /** ffmpeg is stopped when the encoded time does not move for this long. */
  stallMs: number;
}

/** ffmpeg's last words on stderr, kept for the error of a stalled render. */
const STDERR_LINES = 5;

export async function renderFilm(opts: RenderFilmOptions): Promise<RenderedFile> {
  const inv = ffmpegArgs(opts.graph, { assets: opts.assets, sources: opts.sources, output: opts.output, encode: opts.encode });
  const total = opts.graph.film.durationSeconds;
  const cmd = ffmpeg();
  for (const input of inv.inputs) {
    cmd.input(input.path);
    if (input.options.length > 0) cmd.inputOptions(...input.options);
  }
  cmd.complexFilter(inv.filterGraph).outputOptions('-hide_banner', '-nostdin', ...inv.outputOptions).output(inv.output);
  let lastAdvance = Date.now();
  let encoded = -1;
  let stalled = false;
  const stderr: string[] = [];
  const watchdog = setInterval(() => {
    if (Date.now() - lastAdvance < opts.stallMs) return;
    stalled = true;
    cmd.kill('SIGKILL');
  }, Math.min(1000, opts.stallMs));
  await new Promise<void>((resolve, reject) => {
    cmd.on('stderr', (line: string) => {
      stderr.push(line);
      if (stderr.length > STDERR_LINES) stderr.shift();
    });
    cmd.on('start', () => {
      const proc = (cmd as unknown as { ffmpegProc?: ChildProcess }).ffmpegProc;
      let pending = '';
      proc?.stdout?.on('data', (chunk: Buffer) => {
        pending += chunk.toString('latin1');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          // out_time_us (and, in ffmpeg 5, out_time_ms, also in microseconds) is the encoded position.
          const m = /^out_time_us=(\d+)/.exec(line);
          if (!m || Number(m[1]) <= encoded) continue;
          encoded = Number(m[1]);
          lastAdvance = Date.now();
          if (total > 0) opts.onProgress(Math.min(1, encoded / 1e6 / total));
        }
      });
    });
    cmd.on('error', (err: Error) =>
      reject(
        stalled
          ? new RenderFailedError('render_stalled', `ffmpeg made no progress for ${opts.stallMs / 1000} s and was stopped; its last output: ${stderr.join(' | ').replaceAll(opts.scrub, '')}`)
          : new RenderFailedError('ffmpeg_failed', err.message.replaceAll(opts.scrub, '')),
      ),
    );
    cmd.on('end', () => resolve());
    cmd.run();
  }).finally(() => clearInterval(watchdog));
  return probe(inv.output);
}

/** Duration (of the container) and frame size of a rendered file. */
export function probe(file: string): Promise<RenderedFile & { streams: string[] }> {
  return new Promise((resolve, reject) => {
    ffmpeg.ffprobe(file, (err, data) => {
      if (err) return reject(new RenderFailedError('probe_failed', `ffprobe could not read the output: ${String((err as Error).message ?? err)}`));
      const video = data.streams.find((s) => s.codec_type === 'video');
      resolve({
        durationSeconds: Number(data.format.duration ?? 0),
        width: video?.width ?? 0,
        height: video?.height ?? 0,
        streams: data.streams.map((s) => `${s.codec_type}:${s.codec_name}`),
      });
    });
  });
}
