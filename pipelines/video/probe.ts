import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { MediaStream } from '../../domain/video/source.js';

const run = promisify(execFile);
const round = (n: number) => Math.round(n * 1000) / 1000;

/** ffprobe of a damaged or hostile file gets this long, then counts as unreadable. */
const PROBE_TIMEOUT_MS = 30_000;

/** ffprobe could not read the media; the message is ffprobe's reason. */
export class UnreadableMediaError extends Error {}

export interface Probe {
  durationSeconds: number | null;
  streams: MediaStream[];
}

interface RawStream {
  index?: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  sample_rate?: string;
  channels?: number;
  tags?: { language?: string };
}

/** "30000/1001" as frames a second; undefined for ffprobe's "0/0". */
function rate(fraction: string | undefined): number | undefined {
  const [n, d] = (fraction ?? '').split('/').map(Number);
  return n && d ? round(n / d) : undefined;
}

/** ffprobe's JSON as the streams a source record lists (pure: tested on ffprobe's own output). */
export function parseProbe(json: string): Probe {
  const raw = JSON.parse(json) as { format?: { duration?: string }; streams?: RawStream[] };
  const duration = Number(raw.format?.duration);
  const streams = (raw.streams ?? []).map((s, i): MediaStream => {
    const type = s.codec_type === 'video' || s.codec_type === 'audio' || s.codec_type === 'subtitle' ? s.codec_type : 'other';
    return {
      index: s.index ?? i,
      type,
      codec: s.codec_name ?? 'unknown',
      ...(type === 'video' && s.width && s.height ? { width: s.width, height: s.height } : {}),
      ...(type === 'video' && rate(s.avg_frame_rate) ? { fps: rate(s.avg_frame_rate) } : {}),
      ...(type === 'audio' && Number(s.sample_rate) ? { sampleRate: Number(s.sample_rate) } : {}),
      ...(type === 'audio' && s.channels ? { channels: s.channels } : {}),
      ...(s.tags?.language && s.tags.language !== 'und' ? { language: s.tags.language } : {}),
    };
  });
  return { durationSeconds: Number.isFinite(duration) ? round(duration) : null, streams };
}

/** Reads a media file's duration and streams; UnreadableMediaError naming ffprobe's reason when it cannot. */
export async function probeMedia(file: string): Promise<Probe> {
  try {
    const { stdout } = await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { maxBuffer: 64 * 1024 * 1024, timeout: PROBE_TIMEOUT_MS });
    return parseProbe(stdout);
  } catch (err) {
    const e = err as Error & { stderr?: string; killed?: boolean };
    if (e.killed) throw new UnreadableMediaError(`ffprobe gave no answer within ${PROBE_TIMEOUT_MS / 1000} s`);
    // Without the scratch file's name and the demuxer's address ("[mov,mp4,… @ 0x…] moov atom not found").
    const lines = (e.stderr ?? '').split('\n').map((l) => l.replace(/^\[[^\]]*\]\s*/, '').replace(`${file}: `, '').trim());
    const reason = lines.find(Boolean) ?? 'ffprobe failed';
    throw new UnreadableMediaError(reason.slice(0, 300));
  }
}
