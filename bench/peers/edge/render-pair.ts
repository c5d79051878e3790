import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compile } from '../../../domain/video/compile.js';
import { ffmpegArgs, type EncodeOptions } from '../../../domain/video/ffmpeg-args.js';
import { probe } from '../../../pipelines/video/render-film.js';
import { spawnBenchServer } from '../../bench-server.js';
import { runPair, type Side } from '../harness.js';
import { FILM_SECONDS, makeMedia, remotionProps, weirScript, type FilmMedia } from './film.js';
import { aptInstall, npmInstall } from './install.js';
import { pairRun } from './pair-run.js';

/**
 * The rendering pairs (issue pair 6): the film of film.ts rendered by Weir (POST /api/render on a
 * Weir process with the video service, timed from the request to the job reading complete: queue,
 * compile, ffmpeg, ffprobe, blob store) against Remotion 4 (the same film as a composition,
 * bench/peers/remotion) and against Weir's own ffmpeg command line for the film run bare. The
 * figure is the speed as a multiple of real time (film seconds / wall seconds).
 */

const KEY = 'peers_render_key';
const ENCODE: Pick<EncodeOptions, 'preset' | 'crf' | 'threads'> = { preset: 'ultrafast', crf: 23, threads: 0 };
const REMOTION_DIR = fileURLToPath(new URL('../remotion/', import.meta.url));
const run = promisify(execFile);

interface Shared {
  dir: string;
  media: FilmMedia;
  /** The media's asset ids in the Weir process. */
  ids: FilmMedia;
  notes: string[];
}

async function exited(child: ChildProcess, what: string): Promise<void> {
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${what} exited with ${code}`);
}

/** Weir: one process (role all, embedded defaults) with the video service, one render at a time. */
function weirSide(shared: Shared): Side {
  let server: { url: string; child: ChildProcess } | undefined;
  const h = { 'x-api-key': KEY };
  return {
    name: 'Weir (POST /api/render, role all, embedded defaults)',
    async setup() {
      shared.notes.push(await aptInstall(['ffmpeg', 'fonts-dejavu-core', 'fonts-noto-core']));
      shared.media = await makeMedia(shared.dir);
      server = await spawnBenchServer(new URL('./weir-video-server.ts', import.meta.url).href, {
        DATA_DIR: path.join(shared.dir, 'weir'),
        API_KEYS: `peers:${KEY}`,
        RENDER_PRESET: ENCODE.preset,
        RENDER_CRF: String(ENCODE.crf),
        RENDER_THREADS: String(ENCODE.threads),
        LOG_LEVEL: 'warn',
      });
      const upload = async (file: string) => {
        const form = new FormData();
        form.append('file', new Blob([await readFile(file)]), path.basename(file));
        const r = await fetch(`${server!.url}/api/assets`, { method: 'POST', headers: h, body: form });
        if (r.status >= 300) throw new Error(`asset upload: ${r.status} ${await r.text()}`);
        return ((await r.json()) as { assets: { assetId: string }[] }).assets[0]!.assetId;
      };
      shared.ids = { picture: await upload(shared.media.picture), clip: await upload(shared.media.clip), bed: await upload(shared.media.bed) };
    },
    async run(round) {
      const started = performance.now();
      const r = await fetch(`${server!.url}/api/render`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: JSON.stringify({ source: weirScript(shared.ids) }) });
      if (r.status >= 300) throw new Error(`render: ${r.status} ${await r.text()}`);
      const { jobId } = (await r.json()) as { jobId: string };
      for (;;) {
        const job = (await (await fetch(`${server!.url}/api/render/${jobId}`, { headers: h })).json()) as { status: string; output?: { durationSeconds: number; width: number; height: number; sizeBytes: number }; errors?: unknown };
        if (job.status === 'failed') throw new Error(`render failed: ${JSON.stringify(job.errors)}`);
        if (job.status === 'complete') {
          const seconds = (performance.now() - started) / 1000;
          const o = job.output!;
          shared.notes.push(`Round ${round + 1}, Weir: ${seconds.toFixed(1)} s for ${o.durationSeconds.toFixed(2)} s of ${o.width}x${o.height} (${(o.sizeBytes / 1e6).toFixed(1)} MB).`);
          return o.durationSeconds / seconds;
        }
        await sleep(100);
      }
    },
    async teardown() {
      if (server && server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await once(server.child, 'exit');
      }
    },
  };
}

/** Reads back a rendered file, notes it, and answers its speed. */
async function speed(shared: Shared, who: string, round: number, file: string, seconds: number): Promise<number> {
  const p = await probe(file);
  shared.notes.push(`Round ${round + 1}, ${who}: ${seconds.toFixed(1)} s for ${p.durationSeconds.toFixed(2)} s of ${p.width}x${p.height} (${p.streams.join(', ')}).`);
  if (Math.abs(p.durationSeconds - FILM_SECONDS) > 0.5 || p.height !== 1080) throw new Error(`${who} rendered ${p.durationSeconds} s at ${p.width}x${p.height}`);
  return p.durationSeconds / seconds;
}

/** Weir's own ffmpeg invocation for the film (the render worker's), run bare on the same files. */
function bareSide(shared: Shared): Side {
  return {
    name: "Weir's ffmpeg command line for the film, run bare",
    async run(round) {
      const compiled = compile(weirScript(shared.ids));
      if (!compiled.ok) throw new Error(`the film does not compile: ${JSON.stringify(compiled.diagnostics)}`);
      const output = path.join(shared.dir, `bare-${round}.mp4`);
      const inv = ffmpegArgs(compiled.renderGraph, {
        assets: { [shared.ids.picture]: { path: shared.media.picture, kind: 'image' }, [shared.ids.clip]: { path: shared.media.clip, kind: 'video' }, [shared.ids.bed]: { path: shared.media.bed, kind: 'audio' } },
        output,
        encode: ENCODE,
      });
      const started = performance.now();
      await exited(spawn('ffmpeg', ['-hide_banner', '-nostdin', '-y', ...inv.args], { stdio: 'ignore' }), 'ffmpeg');
      return speed(shared, 'bare ffmpeg', round, output, (performance.now() - started) / 1000);
    },
  };
}

/** Remotion 4 in its own folder: bundled once in setup, each round one render (browser start included). */
function remotionSide(shared: Shared): Side {
  let serveUrl = '';
  let propsFile = '';
  const concurrency = os.cpus().length;
  return {
    name: `Remotion 4.0.527 (Debian chromium, concurrency ${concurrency})`,
    async setup() {
      shared.notes.push(await aptInstall(['chromium']), await npmInstall(REMOTION_DIR));
      const pub = path.join(shared.dir, 'public');
      await mkdir(pub, { recursive: true });
      for (const f of Object.values(shared.media)) await writeFile(path.join(pub, path.basename(f)), await readFile(f));
      propsFile = path.join(shared.dir, 'props.json');
      await writeFile(propsFile, JSON.stringify(remotionProps(shared.media)));
      const t0 = performance.now();
      const { stdout } = await run(process.execPath, ['render.mjs', 'bundle', pub, path.join(shared.dir, 'bundle')], { cwd: REMOTION_DIR, maxBuffer: 16 * 1024 * 1024 });
      serveUrl = stdout.trim().split('\n').at(-1)!;
      shared.notes.push(`Remotion's composition bundled once before the rounds in ${((performance.now() - t0) / 1000).toFixed(0)} s (not counted in its renders).`);
    },
    async run(round) {
      const output = path.join(shared.dir, `remotion-${round}.mp4`);
      const started = performance.now();
      await exited(spawn(process.execPath, ['render.mjs', 'render', serveUrl, propsFile, output, String(concurrency)], { cwd: REMOTION_DIR, stdio: ['ignore', 'ignore', 'inherit'] }), 'Remotion render');
      return speed(shared, 'Remotion', round, output, (performance.now() - started) / 1000);
    },
  };
}

export async function runRenderPair(peer: 'remotion' | 'bare-ffmpeg'): Promise<void> {
  const shared: Shared = { dir: await mkdtemp(path.join(os.tmpdir(), 'weir-peers-render-')), media: { picture: '', clip: '', bed: '' }, ids: { picture: '', clip: '', bed: '' }, notes: [] };
  shared.notes.push(
    `The film (bench/peers/edge/film.ts): ${FILM_SECONDS} s at 1920x1080, 30 fps, ten scenes of 3.4-3.5 s joined by 0.5 s transitions (fade, wipe, dissolve, slide), each with a title and a text line, a 1280x720 picture over a colour or as the background, a 4 s 1280x720 H.264 clip in two scenes, a 30 s audio bed at 0.6 with 1 s fades; media generated by ffmpeg. Both sides encode H.264 with x264 \`ultrafast\`, CRF 23, on both cores, one render at a time.`,
  );
  const id = `render-${peer}`;
  await runPair({
    id,
    order: 6,
    title: peer === 'remotion' ? 'Rendering: Weir vs Remotion 4, the same 30 s 1080p film' : "Rendering: Weir vs its own ffmpeg command line run bare, the same 30 s 1080p film",
    metric: '× real time',
    higherIsBetter: true,
    goal: peer === 'remotion' ? { ratio: 3, text: 'Weir ≥ 3× Remotion' } : { ratio: 1 / 1.1, text: "Weir's overhead over its bare ffmpeg ≤ 10 % (Weir ≥ 0.91×)" },
    weir: weirSide(shared),
    peer: peer === 'remotion' ? remotionSide(shared) : bareSide(shared),
    ...pairRun(id, 'PEERS_ROUNDS (3)'),
    guarantees: [
      'Weir: the render is a durable job (queued in the log, its status recorded, its output and metadata in the blob store), answered by its id at once; one render at a time per worker; the output probed with ffprobe before the job reads complete.',
      peer === 'remotion' ? 'Remotion: renderMedia to a local file; nothing queued or recorded.' : 'Bare ffmpeg: the same invocation to a local file; nothing queued, probed or recorded.',
    ],
    notes: shared.notes,
  });
}
