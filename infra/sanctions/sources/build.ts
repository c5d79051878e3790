import type { EntityType, ListType, NameVariant, SanctionEntity } from '../../../domain/screening/entity.js';
import { countryCode, parseDob } from '../../../domain/screening/facts.js';

/** Starts an entity of a list; parsers then add names and facts with the helpers below. */
export function newEntity(listId: string, source: string, listType: ListType, nativeId: string, type: EntityType): SanctionEntity {
  return {
    id: `${listId}-${nativeId}`,
    nativeId,
    source,
    listType,
    type,
    names: [],
    datesOfBirth: [],
    nationalities: [],
    addresses: [],
    programs: [],
    remarks: '',
    relations: [],
    sameAs: [],
  };
}

const pushUnique = <T>(list: T[], value: T) => {
  if (!list.includes(value)) list.push(value);
};

/**
 * Adds a name unless the entity already has it (lists repeat names across rows); the first added is
 * primary. A name given both as a weak and as an ordinary alias is ordinary.
 */
export function addName(e: SanctionEntity, name: string, kind: NameVariant['kind'], weak = false): void {
  const clean = name.replace(/\s+/g, ' ').trim();
  if (!clean) return;
  const key = clean.toLowerCase();
  const known = e.names.find((n) => n.name.toLowerCase() === key);
  if (known) {
    if (!weak) delete known.weak;
    return;
  }
  // A weak name that comes first keeps its mark: the UK list may give a target's aliases before its primary name.
  e.names.push({ name: clean, kind: e.names.length === 0 && kind !== 'original_script' ? 'primary' : kind, ...(weak ? { weak: true as const } : {}) });
}

/** Marks an alias the entity already has as weak (a flag given apart from the name, as in OFAC's Enhanced XML). */
export function markWeak(e: SanctionEntity, name: string): void {
  const key = name.replace(/\s+/g, ' ').trim().toLowerCase();
  const known = e.names.find((n, i) => i > 0 && n.name.toLowerCase() === key);
  if (known) known.weak = true;
}

export function addDob(e: SanctionEntity, text: string): void {
  const d = parseDob(text);
  if (d) pushUnique(e.datesOfBirth, d);
}

export function addNationality(e: SanctionEntity, text: string): void {
  const t = text.trim().replace(/\.$/, '');
  if (t) pushUnique(e.nationalities, countryCode(t) ?? t);
}

export function addProgram(e: SanctionEntity, program: string): void {
  const p = program.trim();
  if (p) pushUnique(e.programs, p);
}

export function addAddress(e: SanctionEntity, parts: string[], country: string): void {
  const line = parts.map((p) => p.trim()).filter(Boolean).join(', ');
  const c = country.trim();
  if (!line && !c) return;
  if (e.addresses.some((a) => a.line === line && a.country === c)) return;
  e.addresses.push({ line, country: c });
}

export function addSameAs(e: SanctionEntity, id: string): void {
  if (id !== e.id) pushUnique(e.sameAs, id);
}
