import type { EntityType, SanctionEntity } from '../../../../domain/screening/entity.js';
import { addAddress, addDob, addName, addNationality, addProgram, addSameAs, newEntity } from '../build.js';
import { readCsvWithHeader, splitList } from '../csv.js';
import type { SourceFiles } from '../types.js';

export const folder = 'uk';
export const mainFile = 'UK_Sanctions_List.csv';

const TYPES: Record<string, EntityType> = { Individual: 'person', Entity: 'organization', Ship: 'vessel' };
const ALIAS_KIND: Record<string, 'primary' | 'aka' | 'fka'> = { 'Primary name': 'primary', 'Primary name variation': 'aka', AKA: 'aka', FKA: 'fka' };

/**
 * HM Treasury / OFSI Consolidated List (ConList) CSV: a `Last Updated` line, a 36-column header,
 * then one row per name variant; rows of one target share `Group ID` and are not adjacent.
 */
export function parse(files: SourceFiles): SanctionEntity[] {
  const file = files.label(mainFile);
  const raw = files.text(mainFile);
  const skipLines = raw.startsWith('Last Updated') ? 1 : 0;
  const rows = readCsvWithHeader(raw, file, ['Name 6', 'Group Type', 'Group ID', 'Alias Type'], { skipLines });
  const groups = new Map<string, { entity: SanctionEntity; primary: boolean }>();
  for (const row of rows) {
    const id = row.get('Group ID');
    if (!/^\d+$/.test(id)) row.fail(`Group ID must be a number, got "${id.slice(0, 40)}"`);
    const type = TYPES[row.get('Group Type')] ?? row.fail(`unknown Group Type "${row.get('Group Type')}"`);
    let g = groups.get(id);
    if (!g) {
      g = { entity: newEntity('uk', 'UK-OFSI', 'sanctions', id, type), primary: false };
      groups.set(id, g);
    }
    const e = g.entity;
    const name = ['Name 1', 'Name 2', 'Name 3', 'Name 4', 'Name 5', 'Name 6'].map((c) => row.get(c)).filter(Boolean).join(' ');
    const kind = ALIAS_KIND[row.get('Alias Type')] ?? 'aka';
    if (kind === 'primary' && !g.primary && name) {
      // Rows arrive in any order: the primary name moves to the front when it shows up.
      g.primary = true;
      e.names = e.names.filter((n) => n.name.toLowerCase() !== name.toLowerCase());
      e.names.unshift({ name, kind: 'primary' });
      e.names.forEach((n, i) => {
        if (i > 0 && n.kind === 'primary') n.kind = 'aka';
      });
    } else addName(e, name, kind === 'primary' ? 'aka' : kind, /^low/i.test(row.get('Alias Quality')));
    addName(e, row.get('Name Non-Latin Script'), 'original_script');
    addDob(e, row.get('DOB'));
    for (const n of splitList(row.get('Nationality'), /\(\d+\)|,|;/)) addNationality(e, n);
    addProgram(e, row.get('Regime'));
    addAddress(e, ['Address 1', 'Address 2', 'Address 3', 'Address 4', 'Address 5', 'Address 6', 'Post/Zip Code'].map((c) => row.get(c)), row.get('Country'));
    if (!e.remarks) e.remarks = row.get('Other Information');
    // `(UN Ref):KPe.018`: the same party on the UN list.
    const un = /\(UN Ref\):\s*([A-Za-z]{2,3}[ie]\.\d+)/.exec(row.get('Other Information'));
    if (un) addSameAs(e, `un-${un[1]}`);
  }
  return [...groups.values()].map((g) => g.entity);
}
