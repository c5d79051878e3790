import { nameWords, type NameWords } from './normalize.js';
import { NameIndex, type IndexInput, type Pause } from './index.js';
import { RelationshipGraph } from './graph.js';
import { Parties } from './parties.js';
import type { SanctionEntity } from './entity.js';
import { weakKeysByParty } from './weak-aliases.js';

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
  const byId = new Map(entities.map((e, i) => [e.id, i]));
  // Names are tokenised once here and shared by the graph (target resolution) and the index.
  const words: NameWords[][] = [];
  const keysOf: string[][] = [];
  for (let ref = 0; ref < entities.length; ref++) {
    if (ref % 2000 === 1999) await pause();
    const w = entities[ref]!.names.map((n) => nameWords(n.name));
    words.push(w);
    keysOf.push(w.map((x) => [...x.tokens].sort().join(' ')));
  }
  // A weak alias is a common name: it never joins two records into one party.
  const strongKeys = entities.map((e, ref) => [...new Set(keysOf[ref]!.filter((key, k) => key && (k === 0 || !e.names[k]!.weak)))]);
  const primaryKeys = keysOf.map((keys) => keys[0] ?? '');
  const parties = new Parties(entities, primaryKeys, strongKeys, byId);
  const weakKeys = weakKeysByParty(entities, keysOf, parties);
  const inputs: IndexInput[] = [];
  const nameKeys: string[][] = [];
  for (let ref = 0; ref < entities.length; ref++) {
    const partyWeak = weakKeys.get(parties.of[ref]!);
    const keys = new Map<string, IndexInput>();
    entities[ref]!.names.forEach((n, k) => {
      const key = keysOf[ref]![k]!;
      // The primary name is never weak, whatever a publisher's grading of a copy of it says.
      if (k > 0 && key !== primaryKeys[ref] && partyWeak?.has(key)) n.weak = true;
      const weak = k > 0 && key !== primaryKeys[ref] && n.weak === true;
      const known = keys.get(key);
      if (known) {
        if (!weak) delete known.weak;
        return;
      }
      if (!key) return;
      const input: IndexInput = { text: n.name, words: words[ref]![k]!, ref, ...(weak ? { weak: true } : {}) };
      keys.set(key, input);
      inputs.push(input);
    });
    nameKeys.push([...keys.keys()]);
  }
  const graph = await RelationshipGraph.build(entities, nameKeys, pause);
  graph.mentions.forEach((m, i) => inputs.push({ text: m.name, ref: entities.length + i }));
  const index = await NameIndex.build(inputs, pause);
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
