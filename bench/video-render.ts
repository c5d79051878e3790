/**
 * Render speed as a multiple of real time: a 30 s 1080p film with titles, text, images, an audio
 * bed and a transition between every scene, rendered to MP4 through the HTTP API and the render
 * queue, (1) on the embedded defaults (one process, role all) and (2) with the render worker in a
 * process of its own (role render) fed through Kafka. Writes bench/results/video-render.md;
 * `npx tsx bench/collect.ts` puts it in bench/RESULTS.md.
 *
 *   npx tsx bench/video-render.ts      (Kafka: KAFKA_BROKERS, default 127.0.0.1:19092)
 *
 * RENDER_PRESET / RENDER_THREADS / RENDER_CRF set the ffmpeg settings measured (defaults below).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startProcess } from '../app/start.js';
import { videoService } from '../services/video.js';
import { spawnBenchServer } from './bench-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const settings = { RENDER_PRESET: process.env.RENDER_PRESET ?? 'ultrafast', RENDER_THREADS: process.env.RENDER_THREADS ?? '0', RENDER_CRF: process.env.RENDER_CRF ?? '23' };
const KEY = 'bench_key';

if (process.env.WEIR_BENCH_SERVER === '1') {
  // The render worker process of the Kafka run.
  await startProcess({ role: 'render', env: { ...process.env }, services: [videoService], handleSignals: true });
  console.log('URL ready');
} else {
  await main();
}

/** 10 scenes of 3.45 s with 0.5 s fades between them: 30 s of film. */
function script(image: string, bed: string): string {
  const lines = ['film "Render bench"', 'mood confident', 'aspect 16:9', `audio asset:${bed} volume 0.6 fade 1s`];
  for (let i = 0; i < 10; i++) {
    lines.push(`scene "Scene ${i}" 3.45s`, i % 2 === 0 ? `  background #${(0x102030 + i * 0x050505).toString(16)}` : `  background asset:${image}`, `  title "Chapter ${i}"`, '  text "Scored before it settles"');
    if (i % 2 === 0) lines.push(`  image asset:${image}`);
    if (i < 9) lines.push(`  transition ${['fade', 'wipeleft', 'dissolve', 'slideup'][i % 4]} 0.5s`);
  }
  return lines.join('\n');
}

async function media(dir: string): Promise<{ png: Buffer; wav: Buffer }> {
  const ff = (...args: string[]) => promisify(execFile)('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
  await ff('-f', 'lavfi', '-i', 'testsrc2=size=1280x720', '-frames:v', '1', path.join(dir, 'i.png'));
  await ff('-f', 'lavfi', '-i', 'sine=frequency=330:duration=30', path.join(dir, 'b.wav'));
  return { png: await readFile(path.join(dir, 'i.png')), wav: await readFile(path.join(dir, 'b.wav')) };
}

async function renderOnce(base: string, m: { png: Buffer; wav: Buffer }): Promise<{ seconds: number; film: number; width: number; height: number; sizeBytes: number }> {
  const upload = async (content: Buffer, name: string) => {
    const form = new FormData();
    form.append('file', new Blob([content]), name);
    const r = await fetch(`${base}/api/assets`, { method: 'POST', headers: { 'x-api-key': KEY }, body: form });
    return ((await r.json()) as { assets: { assetId: string }[] }).assets[0]!.assetId;
  };
  const source = script(await upload(m.png, 'i.png'), await upload(m.wav, 'b.wav'));
  const started = performance.now();
  const queued = (await (await fetch(`${base}/api/render`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ source }) })).json()) as { jobId: string };
  for (;;) {
    const job = (await (await fetch(`${base}/api/render/${queued.jobId}`, { headers: { 'x-api-key': KEY } })).json()) as { status: string; output?: { durationSeconds: number; width: number; height: number; sizeBytes: number }; errors?: unknown };
    if (job.status === 'failed') throw new Error(JSON.stringify(job.errors));
    if (job.status === 'complete') return { seconds: (performance.now() - started) / 1000, film: job.output!.durationSeconds, width: job.output!.width, height: job.output!.height, sizeBytes: job.output!.sizeBytes };
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-render-bench-'));
  const m = await media(dir);
  const load = () => os.loadavg()[0]!.toFixed(1);
  const rows: string[] = [];
  const baseEnv = { PORT: '0', LOG_LEVEL: 'warn', API_KEYS: `bench:${KEY}`, ...settings };

  const loadBefore = load();
  const embedded = await startProcess({ role: 'all', env: { ...baseEnv, DATA_DIR: path.join(dir, 'embedded') }, services: [videoService] });
  const e = await renderOnce(embedded.url!, m);
  await embedded.stop();
  rows.push(row('embedded defaults, one process (role all)', e, loadBefore, load()));
  console.log(rows.at(-1));

  const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:19092';
  const kafkaEnv = { KAFKA_BROKERS: brokers, BLOBS_DIR: path.join(dir, 'blobs'), RENDER_TOPIC: `render.jobs.bench${Date.now()}` };
  const loadBeforeKafka = load();
  const worker = await spawnBenchServer(import.meta.url, { ...baseEnv, ...kafkaEnv, DATA_DIR: path.join(dir, 'worker'), LOG_LEVEL: 'warn' });
  const apiSide = await startProcess({ role: 'api', env: { ...baseEnv, ...kafkaEnv, DATA_DIR: path.join(dir, 'api') }, services: [videoService] });
  const k = await renderOnce(apiSide.url!, m);
  worker.child.kill('SIGTERM');
  await apiSide.stop();
  rows.push(row(`Kafka (${brokers}), worker in its own process (role render)`, k, loadBeforeKafka, load()));
  console.log(rows.at(-1));

  const out = `## Video: render speed (30 s at 1080p)

Command: \`npx tsx bench/video-render.ts\`. Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${os.cpus().length} cores,
Node ${process.version}, ffmpeg from Debian (load averages beside each row).

Workload: a 30 s film at 1920x1080, 30 fps: 10 scenes, each with a title and a text line (drawtext, fonts
through fontconfig), half of them with a 1280x720 picture background and half with the picture contained
over a colour, an audio bed with fades, a transition (fade, wipeleft, dissolve, slideup) between every two
scenes. Timed from POST /api/render to the job reading complete (queue, render, ffprobe, blob store).
ffmpeg settings: libx264 \`-preset ${settings.RENDER_PRESET} -crf ${settings.RENDER_CRF}\`, \`-threads ${settings.RENDER_THREADS}\`
(0: one per core), AAC 192 kb/s, \`-movflags +faststart\`; one render at a time (RENDER_CONCURRENCY=1).

| setup | film (s) | render wall time (s) | × real time | output | load before / after |
|---|---:|---:|---:|---|---|
${rows.join('\n')}

Target: at least 1× real time on 2 cores.
`;
  await writeFile(path.join(here, 'results', 'video-render.md'), out);
  console.log(out);
  process.exit(0);
}

function row(setup: string, r: { seconds: number; film: number; width: number; height: number; sizeBytes: number }, before: string, after: string): string {
  return `| ${setup} | ${r.film.toFixed(2)} | ${r.seconds.toFixed(1)} | ${(r.film / r.seconds).toFixed(2)} | ${r.width}x${r.height}, ${(r.sizeBytes / 1e6).toFixed(1)} MB | ${before} / ${after} |`;
}
