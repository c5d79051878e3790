import type { Confidence, RelationshipType, SanctionEntity } from './entity.js';
import { nameTokens } from './normalize.js';
import { extractRelations } from './relationships.js';
import type { Pause } from './index.js';

/**
 * The relationship graph: one edge per relationship a list states or implies. A target that is
 * itself listed becomes an entity-to-entity edge; a target that is only named (a relative who is not
 * listed, a company outside the list) becomes a mention, which relationship screening matches
 * customers against.
 */
export interface Edge {
  from: number;
  /** The listed target, or -1 when the target is only a mention. */
  to: number;
  /** The mention (unlisted target), or -1. */
  mention: number;
  targetName: string;
  type: RelationshipType;
  detail: string;
  confidence: Confidence;
}

export interface Mention {
  name: string;
  edges: number[];
}

/** Order-free key of a name, for exact resolution of a written target to a listed entity. */
export const nameKey = (name: string) => nameTokens(name).sort().join(' ');

const CONFIDENCE_RANK: Record<Confidence, number> = { stated: 0, inferred: 1, weak: 2 };
export const strongerFirst = (a: Edge, b: Edge) => CONFIDENCE_RANK[a.confidence] - CONFIDENCE_RANK[b.confidence];

export class RelationshipGraph {
  readonly edges: Edge[] = [];
  readonly mentions: Mention[] = [];
  private readonly out = new Map<number, number[]>();
  private readonly in = new Map<number, number[]>();

  private constructor() {}

  /** `nameKeys[i]` holds the `nameKey` of every name of entity i. Pauses every few thousand entities. */
  static async build(entities: readonly SanctionEntity[], nameKeys: readonly string[][], pause: Pause = async () => {}): Promise<RelationshipGraph> {
    const graph = new RelationshipGraph();
    await graph.fill(entities, nameKeys, pause);
    return graph;
  }

  private async fill(entities: readonly SanctionEntity[], nameKeys: readonly string[][], pause: Pause): Promise<void> {
    const byName = new Map<string, number[]>();
    const byNative = new Map<string, number>();
    entities.forEach((e, i) => {
      byNative.set(`${e.source}|${e.nativeId}`, i);
      for (const k of nameKeys[i] ?? []) {
        const list = byName.get(k);
        if (!list) byName.set(k, [i]);
        else if (list[list.length - 1] !== i) list.push(i);
      }
    });
    const mentionIds = new Map<string, number>();
    const resolve = (from: number, names: string[], ref?: string): number => {
      const source = entities[from]!.source;
      if (ref) {
        const hit = byNative.get(`${source}|${ref}`);
        if (hit !== undefined) return hit;
      }
      for (const n of names) {
        const hits = byName.get(nameKey(n))?.filter((i) => i !== from) ?? [];
        const same = hits.find((i) => entities[i]!.source === source);
        if (same !== undefined) return same;
        if (hits.length > 0) return hits[0]!;
      }
      return -1;
    };
    const addEdge = (from: number, to: number, targetName: string, type: RelationshipType, detail: string, confidence: Confidence) => {
      let mention = -1;
      if (to < 0) {
        const k = nameKey(targetName);
        if (!k) return;
        mention = mentionIds.get(k) ?? -1;
        if (mention < 0) {
          mention = this.mentions.length;
          mentionIds.set(k, mention);
          this.mentions.push({ name: targetName, edges: [] });
        }
      } else if (to === from) return;
      const id = this.edges.length;
      this.edges.push({ from, to, mention, targetName: to >= 0 ? (entities[to]!.names[0]?.name ?? targetName) : targetName, type, detail, confidence });
      push(this.out, from, id);
      if (to >= 0) push(this.in, to, id);
      else this.mentions[mention]!.edges.push(id);
    };
    for (let from = 0; from < entities.length; from++) {
      const e = entities[from]!;
      if (from % 2000 === 1999) await pause();
      for (const r of e.relations) {
        const to = r.targetNativeId !== undefined ? (byNative.get(`${e.source}|${r.targetNativeId}`) ?? resolve(from, [r.targetName])) : resolve(from, [r.targetName]);
        addEdge(from, to, r.targetName, r.type, r.detail, 'stated');
      }
      if (!e.remarks) continue;
      for (const r of extractRelations(e.remarks)) {
        const to = resolve(from, r.targetNames, r.targetRef);
        addEdge(from, to, r.targetNames[r.targetNames.length - 1]!, r.type, r.detail, r.confidence);
      }
    }
  }

  outbound(entity: number): Edge[] {
    return (this.out.get(entity) ?? []).map((id) => this.edges[id]!);
  }

  inbound(entity: number): Edge[] {
    return (this.in.get(entity) ?? []).map((id) => this.edges[id]!);
  }

  hasRelations(entity: number): boolean {
    return this.out.has(entity) || this.in.has(entity);
  }
}

function push(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
