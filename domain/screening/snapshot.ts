import { nameWords } from './normalize.js';
import { NameIndex, type IndexInput, type Pause } from './index.js';
import { RelationshipGraph } from './graph.js';
import { Parties } from './parties.js';
import type { SanctionEntity } from './entity.js';

/** Counts of one loaded list, reported at load and by the lists endpoint. */
export interface ListStats {
  list: string;
  /** Source codes of its entities (the US CSL holds 13 lists). */
  sources: string[];
  entities: number;
  names: number;
  relationships: number;
}

/**
 * Everything a screen reads, built once per load and swapped whole: entities, the name index over
 * listed names and relationship mentions (one retrieval pass serves both), and the graph.
 */
export interface Snapshot {
  version: string;
  loadedAt: string;
  lists: ListStats[];
  entities: SanctionEntity[];
  byId: Map<string, number>;
  graph: RelationshipGraph;
  /** Records of one party on several lists. */
  parties: Parties;
  /** Refs below `entities.length` are entities; the rest are mentions (ref - entities.length). */
  index: NameIndex;
}

export const EMPTY_VERSION = 'empty';

export async function buildSnapshot(
  lists: { list: string; entities: SanctionEntity[] }[],
  version: string,
  loadedAt: string,
  pause: Pause = async () => {},
): Promise<Snapshot> {
  const entities = lists.flatMap((l) => l.entities);
  // Names are tokenised once here and shared by the graph (target resolution) and the index.
  const inputs: IndexInput[] = [];
  const nameKeys: string[][] = [];
  const primaryKeys: string[] = [];
  for (let ref = 0; ref < entities.length; ref++) {
    const e = entities[ref]!;
    if (ref % 2000 === 1999) await pause();
    const keys: string[] = [];
    for (const n of e.names) {
      const words = nameWords(n.name);
      const key = [...words.tokens].sort().join(' ');
      if (n === e.names[0]) primaryKeys[ref] = key;
      if (!key || keys.includes(key)) continue;
      keys.push(key);
      inputs.push({ text: n.name, words, ref });
    }
    nameKeys.push(keys);
  }
  const graph = await RelationshipGraph.build(entities, nameKeys, pause);
  graph.mentions.forEach((m, i) => inputs.push({ text: m.name, ref: entities.length + i }));
  const index = await NameIndex.build(inputs, pause);
  const byId = new Map(entities.map((e, i) => [e.id, i]));
  const parties = new Parties(entities, primaryKeys, nameKeys, byId);
  let offset = 0;
  const stats = lists.map((l) => {
    const from = offset;
    offset += l.entities.length;
    let relationships = 0;
    for (let i = from; i < offset; i++) relationships += graph.outbound(i).length;
    return {
      list: l.list,
      sources: [...new Set(l.entities.map((e) => e.source))],
      entities: l.entities.length,
      names: l.entities.reduce((n, e) => n + e.names.length, 0),
      relationships,
    };
  });
  return { version, loadedAt, lists: stats, entities, byId, graph, parties, index };
}
