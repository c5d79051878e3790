/**
 * Reads a V8 CPU profile (.cpuprofile) as cost per event: each function's self and inclusive
 * share of the sampled busy time (idle left out), times the process CPU of the same stretch, per
 * event. Shares come from the main thread's samples; the process CPU also holds GC helper and
 * I/O threads, which this spreads over the main thread's items in proportion.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
  /** Samples taken after this instant (same clock as startTime) are left out. */
  endedAt?: number;
}

export interface CostItem {
  name: string;
  microsPerEvent: number;
  share: number;
}

/** Where a frame comes from: `pkg/file` under node_modules, the path inside the checkout otherwise. */
function where(url: string): string {
  if (!url) return '';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const checkout = /\/(infra|pipelines|domain|schemas|bench|app|services)\//.exec(url);
  return checkout ? url.slice(checkout.index + 1) : url.replace(/^file:\/\//, '');
}

const nameOf = (n: Pick<ProfileNode, 'callFrame'>): string => {
  const file = where(n.callFrame.url);
  return `${n.callFrame.functionName || '(anonymous)'}${file ? ` ${file}:${n.callFrame.lineNumber + 1}` : ''}`;
};

/** The package (or top folder of the checkout) a frame belongs to, for a coarse split. */
const areaOf = (n: ProfileNode): string => {
  const file = where(n.callFrame.url);
  if (!file) return n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : '(native)';
  if (file.startsWith('node:')) return 'node internals';
  const parts = file.split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
};

export function profileCosts(profile: CpuProfile, cpuMicros: number, events: number): { self: CostItem[]; inclusive: CostItem[]; areas: CostItem[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfTime = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (profile.endedAt === undefined || at <= profile.endedAt) selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  let busy = 0;
  for (const [id, t] of selfTime) if (byId.get(id)!.callFrame.functionName !== '(idle)') busy += t;

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, t: number) => m.set(k, (m.get(k) ?? 0) + t);
  // Every distinct function on the stack gets a sample's time once, so recursion is not counted twice.
  const walk = (id: number, stack: string[]) => {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') return;
    const name = nameOf(node);
    const onStack = stack.includes(name) ? stack : [...stack, name];
    const t = selfTime.get(id) ?? 0;
    if (t > 0) {
      add(self, name, t);
      add(areas, areaOf(node), t);
      for (const f of onStack) add(inclusive, f, t);
    }
    for (const child of node.children ?? []) walk(child, onStack);
  };
  walk(profile.nodes[0]!.id, []);

  const rank = (m: Map<string, number>): CostItem[] =>
    [...m]
      .map(([name, t]) => ({ name, share: t / busy, microsPerEvent: ((t / busy) * cpuMicros) / events }))
      .sort((a, b) => b.share - a.share);
  return { self: rank(self), inclusive: rank(inclusive), areas: rank(areas) };
}

/** A markdown table of the first `top` items. */
export function costTable(items: CostItem[], top: number): string {
  const rows = items.slice(0, top).map((i) => `| ${i.name.replaceAll('|', '\\|')} | ${(i.share * 100).toFixed(1)} % | ${i.microsPerEvent.toFixed(1)} |`);
  return ['| item | share of busy samples | µs/event |', '| --- | ---: | ---: |', ...rows].join('\n');
}

interface HeapNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated per event by each function, from V8's sampling heap profile (`.heapprofile`). */
export function allocationCosts(profile: { head: HeapNode }, events: number): { name: string; bytesPerEvent: number }[] {
  const bytes = new Map<string, number>();
  const walk = (node: HeapNode) => {
    const name = nameOf(node);
    if (node.selfSize > 0) bytes.set(name, (bytes.get(name) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return [...bytes].map(([name, b]) => ({ name, bytesPerEvent: b / events })).sort((a, b) => b.bytesPerEvent - a.bytesPerEvent);
}
