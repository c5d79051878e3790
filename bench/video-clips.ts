/**
 * Clip candidate latency over a long transcript: a generated 10-minute talk (subtitle cues, and
 * the same talk as a recogniser's words), shots every 6–10 s and a silence between sentences;
 * one call is sentences, BM25 index, every 15–60 s window scored and the greedy pick. A 1-minute
 * talk, measured alternately in the same run, shows how the cost grows. Writes
 * bench/results/video-clips.md; `npx tsx bench/collect.ts` puts it in bench/RESULTS.md.
 *
 *   npx tsx bench/video-clips.ts
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clipCandidates } from '../domain/video/clips/candidates.js';
import { clipMaterial } from '../domain/video/clips/material.js';
import type { SourceRecord, TranscriptChunk } from '../domain/video/source.js';

const ROUNDS = 40;
const GOALS = ['volcano eruptions', 'weather', 'the price of small gardens', 'submarine'];
const here = path.dirname(fileURLToPath(import.meta.url));

/** A deterministic pseudo-random sequence, so every run measures the same talk. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const WORDS = 'weather garden river mountain city people price team market school music travel energy water forest history science story volcano eruption village road winter summer morning night'.split(' ');
const GLUE = 'the a of and to in is that we it for on with as this was'.split(' ');

/** `minutes` of talk: sentences of 6–14 words at 2.6 words a second, a pause of 0.3–0.9 s after each. */
function talk(minutes: number, withWords: boolean): Pick<SourceRecord, 'durationSeconds' | 'transcript' | 'shots' | 'silences'> {
  const next = random(minutes);
  const transcript: TranscriptChunk[] = [];
  const silences: { start: number; end: number }[] = [];
  let t = 0.5;
  while (t < minutes * 60 - 6) {
    const n = 6 + Math.floor(next() * 9);
    const words = Array.from({ length: n }, (_, i) => {
      const word = i % 2 === 0 ? WORDS[Math.floor(next() * WORDS.length)]! : GLUE[Math.floor(next() * GLUE.length)]!;
      const start = t + i / 2.6;
      return { word, start: Math.round(start * 1000) / 1000, end: Math.round((start + 0.33) * 1000) / 1000 };
    });
    const end = words.at(-1)!.end;
    transcript.push({ start: words[0]!.start, end, text: words.map((w) => w.word).join(' '), ...(withWords ? { words } : {}) });
    const pause = 0.3 + next() * 0.6;
    silences.push({ start: end, end: end + pause });
    t = end + pause;
  }
  const shots = [];
  for (let s = 0, i = 0; s < minutes * 60; i++) {
    const len = 6 + next() * 4;
    shots.push({ index: i, start: Math.round(s * 1000) / 1000, end: Math.round(Math.min(minutes * 60, s + len) * 1000) / 1000, thumbnailId: `th_${i}` });
    s += len;
  }
  return { durationSeconds: minutes * 60, transcript, shots, silences };
}

const sources = { long: { cues: talk(10, false), words: talk(10, true) }, short: { cues: talk(1, false), words: talk(1, true) } };
type Kind = keyof typeof sources.long;

/** One candidates call as the API makes it: material from the record, then the goal's candidates. */
const call = (s: (typeof sources.long)['cues'], goal: string) => clipCandidates(clipMaterial(s), goal, { maxCandidates: 5 });

const times: Record<'long' | 'short', Record<Kind, number[]>> = { long: { cues: [], words: [] }, short: { cues: [], words: [] } };
const found = new Map<string, number>();
const load = () => os.loadavg()[0]!.toFixed(1);
const loadBefore = load();
for (const size of ['long', 'short'] as const) for (const kind of ['cues', 'words'] as const) for (const g of GOALS) call(sources[size][kind], g);
for (let r = 0; r < ROUNDS; r++) {
  // Alternate which length goes first, so neither always meets a warmer or a busier machine.
  for (const size of r % 2 === 0 ? (['long', 'short'] as const) : (['short', 'long'] as const)) {
    for (const kind of ['cues', 'words'] as const) {
      for (const goal of GOALS) {
        const c0 = process.cpuUsage();
        const result = call(sources[size][kind], goal);
        const c = process.cpuUsage(c0);
        times[size][kind].push((c.user + c.system) / 1000);
        if (size === 'long') found.set(`${kind}:${goal}`, result.candidates.length);
      }
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;
const sentences = (kind: Kind) => clipMaterial(sources.long[kind]).sentences.length;
const row = (kind: Kind) =>
  `| ${kind === 'cues' ? 'subtitle cues' : "recogniser's words"} | ${sentences(kind)} | ${median(times.long[kind]).toFixed(2)} | ${p95(times.long[kind]).toFixed(2)} | ${median(times.short[kind]).toFixed(2)} | ${(median(times.long[kind]) / median(times.short[kind])).toFixed(1)}× |`;

const md = `## Video: clip candidate latency

Command: \`npx tsx bench/video-clips.ts\`. Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${os.cpus().length} cores (nproc),
Node ${process.version}; 1-minute load average ${loadBefore} before and ${load()} after the run.

Workload: a generated 10-minute talk (sentences of 6–14 words at 2.6 words a second, a pause after each,
shots of 6–10 s), once as subtitle cues and once as a recogniser's utterances with word timings; and a
1-minute talk made the same way, measured alternately with it in the same run. One call is what
\`POST /api/clips/candidates\` computes after reading the source: sentences, the BM25 index, every window of
15–60 s scored and the greedy pick of 5. Goals: ${GOALS.map((g) => `"${g}"`).join(', ')} (the last is never said);
${ROUNDS} rounds of each after a warm-up. CPU time of this process during the call (the machine is shared,
so wall time would count waits for a core).

| transcript | sentences (10 min) | median, 10 min (ms) | p95, 10 min (ms) | median, 1 min (ms) | 10 min / 1 min |
|---|---:|---:|---:|---:|---:|
${row('cues')}
${row('words')}

Candidates found in the 10-minute talk: ${[...found].map(([k, n]) => `${k} ${n}`).join('; ')}.
`;
await writeFile(path.join(here, 'results', 'video-clips.md'), md);
console.log(md);
