import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The rendering pairs' film, defined once: 30 s at 1920x1080, 30 fps, ten scenes of 3.4 and 3.5 s
 * (whole frames, so that Remotion's frame-based timeline holds the same cuts) joined by 0.5 s
 * transitions, each with a title and a text line, a picture over a colour or as the background,
 * a video clip in two scenes, and an audio bed with fades. `weirScript` writes it in Weir's script
 * language, `remotionProps` as the props of the Remotion composition (bench/peers/remotion/src),
 * and `makeMedia` generates its media with ffmpeg.
 */

export const FPS = 30;
export const TRANSITION_SECONDS = 0.5;
const KINDS = ['fade', 'wipeleft', 'dissolve', 'slideup'] as const;

export interface FilmScene {
  name: string;
  seconds: number;
  /** A colour, or null for the picture as background. */
  colour: string | null;
  picture: boolean;
  clip: boolean;
  title: string;
  text: string;
  /** Into the next scene; null on the last. */
  transition: (typeof KINDS)[number] | null;
}

export const SCENES: FilmScene[] = Array.from({ length: 10 }, (_, i) => ({
  name: `Scene ${i}`,
  seconds: i % 2 === 0 ? 3.4 : 3.5,
  colour: i % 2 === 0 ? `#${(0x102030 + i * 0x050505).toString(16)}` : null,
  picture: i % 2 === 0,
  clip: i === 3 || i === 7,
  title: `Chapter ${i}`,
  text: 'Scored before it settles',
  transition: i < 9 ? KINDS[i % 4]! : null,
}));

export const FILM_SECONDS = SCENES.reduce((s, x) => s + x.seconds, 0) - TRANSITION_SECONDS * (SCENES.length - 1);

export interface FilmMedia {
  picture: string;
  clip: string;
  bed: string;
}

/** A 1280x720 still, a 4 s 1280x720 H.264 clip without sound, a 30 s tone: generated in `dir`. */
export async function makeMedia(dir: string): Promise<FilmMedia> {
  const ff = (...args: string[]) => promisify(execFile)('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
  const m = { picture: path.join(dir, 'picture.png'), clip: path.join(dir, 'clip.mp4'), bed: path.join(dir, 'bed.wav') };
  await ff('-f', 'lavfi', '-i', 'testsrc2=size=1280x720', '-frames:v', '1', m.picture);
  await ff('-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=${FPS}:duration=4`, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', m.clip);
  await ff('-f', 'lavfi', '-i', `sine=frequency=330:duration=${FILM_SECONDS}`, m.bed);
  return m;
}

/** The film as a Weir script, naming the media by their asset ids. */
export function weirScript(ids: FilmMedia): string {
  const lines = ['film "Peers render bench"', 'mood confident', 'aspect 16:9', `audio asset:${ids.bed} volume 0.6 fade 1s`];
  for (const s of SCENES) {
    lines.push(`scene "${s.name}" ${s.seconds}s`, `  background ${s.colour ?? `asset:${ids.picture}`}`, `  title "${s.title}"`, `  text "${s.text}"`);
    if (s.picture) lines.push(`  image asset:${ids.picture}`);
    if (s.clip) lines.push(`  video asset:${ids.clip} mute`);
    if (s.transition) lines.push(`  transition ${s.transition} ${TRANSITION_SECONDS}s`);
  }
  return lines.join('\n');
}

/** The film as the Remotion composition's props: frames in place of seconds, media by file name in its public folder. */
export function remotionProps(media: FilmMedia) {
  const frames = (s: number) => Math.round(s * FPS);
  return {
    fps: FPS,
    width: 1920,
    height: 1080,
    durationInFrames: frames(FILM_SECONDS),
    transitionFrames: frames(TRANSITION_SECONDS),
    media: { picture: path.basename(media.picture), clip: path.basename(media.clip), bed: path.basename(media.bed) },
    bed: { volume: 0.6, fadeFrames: frames(1) },
    scenes: SCENES.map((s) => ({ ...s, frames: frames(s.seconds) })),
  };
}
