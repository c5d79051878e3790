import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Reads a V8 `.cpuprofile` (`node --cpu-prof`) as a reader of a bench wants it: where the main
 * thread's time went, by the place that spent it (self time) and by the project function it was
 * spent under (inclusive time: a sample counts once for every project function on its stack).
 * Sample times are on the monotonic clock of `process.hrtime` (µs), the same in every process of
 * the machine, so a bench can keep only the samples of its measured window and leave out start-up.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled time, ms, idle excluded. */
  busyMs: number;
  idleMs: number;
  /** Self time by place: `pkg:<npm package>`, `node:<internal>`, a project file, or a V8 pseudo-frame such as `(garbage collector)`. */
  selfByPlace: [string, number][];
  /** Self time by function (`name place:line`). */
  selfByFunction: [string, number][];
  /** Inclusive time by project function (`name file:line`). */
  inclusiveByProjectFunction: [string, number][];
  /** Time by layer: each sample goes to the layer of the innermost frame of its stack that a layer matches, else to `other`. */
  byLayer: [string, number][];
}

/** A layer of a summary: a label and a pattern tested against each frame as `function place`. */
export type Layer = [label: string, frame: RegExp];

function placeOf(url: string, root: string): string {
  if (url === '') return '';
  const file = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return `pkg:${pkg[1]}`;
  if (file.startsWith('node:')) return file;
  return file.startsWith(root) ? path.relative(root, file) : file;
}

const isProject = (place: string): boolean => place !== '' && !place.startsWith('pkg:') && !place.startsWith('node:') && !place.startsWith('/');

const top = (m: Map<string, number>, n: number): [string, number][] =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => [k, Math.round(us / 100) / 10]);

/** `process.hrtime.bigint()` in the unit of a profile's clock. */
export const profileClockUs = (): number => Number(process.hrtime.bigint() / 1000n);

export async function summarizeProfile(file: string, root: string, window: { fromUs: number; toUs: number }, layers: Layer[] = [], n = 15): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const label = (node: ProfileNode) => {
    const place = placeOf(node.callFrame.url, root);
    return { place: place || node.callFrame.functionName, fn: `${node.callFrame.functionName || '(anonymous)'} ${place}:${node.callFrame.lineNumber + 1}`, project: isProject(place) };
  };
  const selfByPlace = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const byLayer = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (at < window.fromUs || at > window.toUs) return;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idle += us;
      return;
    }
    busy += us;
    const own = label(node);
    selfByPlace.set(own.place, (selfByPlace.get(own.place) ?? 0) + us);
    selfByFunction.set(own.fn, (selfByFunction.get(own.fn) ?? 0) + us);
    const seen = new Set<string>();
    let layer: string | undefined;
    for (let frame: number | undefined = id; frame !== undefined; frame = parent.get(frame)) {
      const l = label(byId.get(frame)!);
      layer ??= layers.find(([, re]) => re.test(l.fn))?.[0];
      if (l.project && !seen.has(l.fn)) {
        seen.add(l.fn);
        inclusive.set(l.fn, (inclusive.get(l.fn) ?? 0) + us);
      }
    }
    byLayer.set(layer ?? 'other', (byLayer.get(layer ?? 'other') ?? 0) + us);
  });
  return {
    busyMs: Math.round(busy / 1000),
    idleMs: Math.round(idle / 1000),
    selfByPlace: top(selfByPlace, n),
    selfByFunction: top(selfByFunction, n),
    inclusiveByProjectFunction: top(inclusive, n),
    byLayer: top(byLayer, new Set(layers.map(([k]) => k)).size + 1),
  };
}
