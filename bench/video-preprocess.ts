/**
 * Source preprocessing as a multiple of real time, on a 720p source generated here (testsrc2 whose
 * hue jumps every 7 s, flite speech looped under it), beside ffmpeg's own decode of the same file
 * in the same run: the analysis pass alone (ASR off) and with pocketsphinx over every core.
 * Writes bench/results/video-preprocess.md.
 *
 *   npx tsx bench/video-preprocess.ts [minutes=10]
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitAtSilences } from '../domain/video/speech-segments.js';
import { analyseSource } from '../pipelines/video/analyse-source.js';
import { pocketsphinxRecogniser } from '../pipelines/video/pocketsphinx.js';

const minutes = Number(process.argv[2] ?? 10);
const seconds = minutes * 60;
const here = path.dirname(fileURLToPath(import.meta.url));
const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-bench-preprocess-'));
const load = () => os.loadavg()[0]!.toFixed(1);

const speech = path.join(dir, 'speech.wav');
execFileSync('flite', ['-voice', 'slt', '-t', 'The quarterly numbers came in higher than expected. We will open two new offices next spring, and the team is hiring engineers. Thank you all for joining the call today.', '-o', speech]);
const file = path.join(dir, 'source.mp4');
const madeAt = performance.now();
execFileSync('ffmpeg', [
  '-hide_banner', '-loglevel', 'error', '-y',
  '-f', 'lavfi', '-i', `testsrc2=s=1280x720:r=25:d=${seconds},hue=H=2*PI*floor(t/7)/5`,
  '-stream_loop', '-1', '-i', speech,
  '-map', '0:v', '-map', '1:a', '-af', 'apad=pad_dur=1.5',
  '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-t', String(seconds), file,
]);
const madeSeconds = (performance.now() - madeAt) / 1000;

const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const at = performance.now();
  const r = await fn();
  return [r, (performance.now() - at) / 1000];
};
const loadBefore = load();
const [, decode] = await timed(async () => execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', file, '-f', 'null', '-']));
const [analysis, analyse] = await timed(() => analyseSource(file, dir));
const parts = os.availableParallelism();
const [chunks, asr] = await timed(() => pocketsphinxRecogniser().recognise(file, splitAtSilences(analysis.durationSeconds ?? seconds, analysis.silences, parts)));
const x = (t: number) => `${(seconds / t).toFixed(2)}×`;

const md = `# Source preprocessing (bench/video-preprocess.ts)

${new Date().toISOString()}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), load ${loadBefore} before, ${load()} after.
Source: ${minutes} min of 1280x720 25 fps H.264 (ultrafast) with AAC speech, generated in ${madeSeconds.toFixed(0)} s.
Multiples of real time (media seconds per wall-clock second; higher is faster).

| step | wall (s) | × real time |
|---|---:|---:|
| ffmpeg's own decode (\`-f null\`), the floor | ${decode.toFixed(1)} | ${x(decode)} |
| preprocessing without ASR (ffprobe, one scene/silence/loudness pass, ${analysis.shots.length} thumbnails) | ${analyse.toFixed(1)} | ${x(analyse)} |
| speech recognition alone (pocketsphinx, ${parts} segments split at silences) | ${asr.toFixed(1)} | ${x(asr)} |
| preprocessing with ASR (the two above, in sequence as a job runs them) | ${(analyse + asr).toFixed(1)} | ${x(analyse + asr)} |

${analysis.shots.length} shots, ${analysis.silences.length} silences, ${chunks.length} recognised utterances. The machine is shared with other
work: compare rows within this run only.
`;
await writeFile(path.join(here, 'results', 'video-preprocess.md'), md);
console.log(md);
await rm(dir, { recursive: true, force: true });
