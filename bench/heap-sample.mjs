/**
 * Preload for a benchmark that runs Weir in its own process (`node --import ./bench/heap-sample.mjs ...`): V8's
 * sampling heap profiler from WEIR_HEAP_SAMPLE_START_MS (default 20,000) for WEIR_HEAP_SAMPLE_MS (default 60,000)
 * after start, keeping only what outlived a young-generation collection (or died in a full one), so what it
 * holds is what the process promotes, not what it allocates. Writes WEIR_HEAP_SAMPLE_OUT (default
 * heap.heapprofile, which Chrome's DevTools open) and prints the 20 largest functions by bytes sampled.
 * Used for "The write-behind's garbage" in bench/RESULTS.md.
 */
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { setTimeout } from 'node:timers';

const start = Number(process.env.WEIR_HEAP_SAMPLE_START_MS ?? 20_000);
const duration = Number(process.env.WEIR_HEAP_SAMPLE_MS ?? 60_000);
const out = process.env.WEIR_HEAP_SAMPLE_OUT ?? 'heap.heapprofile';

function largest(profile) {
  const bytes = new Map();
  let total = 0;
  const walk = (node) => {
    const f = node.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}`;
    bytes.set(name, (bytes.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(walk);
  };
  walk(profile.head);
  const top = [...bytes].sort((a, b) => b[1] - a[1]).slice(0, 20);
  return [`${(total / 1e6).toFixed(1)} MB sampled`, ...top.map(([name, b]) => `${(b / 1e6).toFixed(1).padStart(8)} MB  ${name}`)].join('\n');
}

const session = new Session();
session.connect();
setTimeout(async () => {
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMinorGC: false, includeObjectsCollectedByMajorGC: true });
  setTimeout(async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    writeFileSync(out, JSON.stringify(profile));
    console.error(`heap sample written to ${out}\n${largest(profile)}`);
  }, duration).unref();
}, start).unref();
