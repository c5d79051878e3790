import type { RelationshipType, SanctionEntity } from '../../../domain/screening/entity.js';
import { list, readXml, text } from './xml.js';
import { markWeak } from './build.js';
import type { SourceFiles } from './types.js';

type Node = Record<string, unknown>;

/** Typed relationships of OFAC's Enhanced XML, as Weir's relationship types. */
const TYPES: Record<string, RelationshipType> = {
  'Owned or Controlled By': 'owned_by',
  'Owns, controls, or operates': 'owner',
  'Acting for or on behalf of': 'agent_of',
  'Family member of': 'family_member',
  'Associate Of': 'associate',
  'Leader or official of': 'employee',
};

const ARRAYS = new Set(['entity', 'relationship', 'name', 'translation']);

/**
 * Adds what OFAC's Enhanced XML (same ent_num as the CSV) says and the CSV files do not: its typed
 * `<relationship>` elements (`stated`), and which aliases are low quality (`<isLowQuality>`), the
 * weak aliases.
 */
export function addEnhancedXml(files: SourceFiles, file: string, entities: SanctionEntity[]): void {
  if (!files.has(file)) return;
  const byNum = new Map(entities.map((e) => [e.nativeId, e]));
  const doc = readXml(files.text(file), files.label(file), ARRAYS);
  const root = (doc.sanctionsData ?? {}) as Node;
  for (const node of list<Node>((root.entities as Node | undefined)?.entity)) {
    const e = byNum.get(String(node['@id']));
    if (!e) continue;
    for (const n of list<Node>((node.names as Node | undefined)?.name)) {
      if (text(n.isLowQuality) !== 'true') continue;
      for (const t of list<Node>((n.translations as Node | undefined)?.translation)) markWeak(e, text(t.formattedFullName));
    }
    for (const r of list<Node>((node.relationships as Node | undefined)?.relationship)) {
      const label = text(r.type);
      const related = r.relatedEntity as Node | string | undefined;
      const targetName = text(related);
      if (!targetName) continue;
      const targetNativeId = typeof related === 'object' && related['@entityId'] !== undefined ? String(related['@entityId']) : undefined;
      e.relations.push({ type: TYPES[label] ?? 'linked_to', detail: `${label}: ${targetName}`, targetName, ...(targetNativeId ? { targetNativeId } : {}) });
    }
  }
}
