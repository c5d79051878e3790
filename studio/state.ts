import type { RenderGraph } from '../domain/video/render-graph.js';

/**
 * What the panels share: the last render graph that compiled, the cursor on the film's timeline,
 * the organization's assets (for completion and hover) and the template variables in use. Panels
 * subscribe to the parts they show.
 */

export interface Asset {
  assetId: string;
  filename: string;
  mimetype: string;
  size: number;
  url: string;
}

export type Variables = Record<string, string | number | boolean>;

interface Shared {
  graph: RenderGraph | null;
  /** The script the graph was compiled from: previews draw it, not text typed since. */
  compiledSource: string;
  /** The script has errors: the graph is the last one that compiled. */
  stale: boolean;
  /** Seconds from the start of the film. */
  cursor: number;
  assets: Asset[];
  variables: Variables;
}

type Key = keyof Shared;
const listeners = new Map<Key, Set<() => void>>();

export const shared: Shared = { graph: null, compiledSource: '', stale: false, cursor: 0, assets: [], variables: {} };

export function update<K extends Key>(key: K, value: Shared[K]): void {
  shared[key] = value;
  for (const f of listeners.get(key) ?? []) f();
}

export function watch(keys: Key[], f: () => void): void {
  for (const k of keys) {
    if (!listeners.has(k)) listeners.set(k, new Set());
    listeners.get(k)!.add(f);
  }
}
