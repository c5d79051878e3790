import type { EntityType, ListType, SanctionEntity } from '../../../../domain/screening/entity.js';
import { addAddress, addDob, addName, addNationality, addProgram, addSameAs, newEntity } from '../build.js';
import { readCsvWithHeader, splitList } from '../csv.js';
import type { SourceFiles } from '../types.js';
import { guessType } from '../guess-type.js';

export const folder = 'us_csl';
export const mainFile = 'consolidated.csv';

const TYPES: Record<string, EntityType> = { Individual: 'person', Entity: 'organization', Vessel: 'vessel', Aircraft: 'aircraft' };

/** Treasury lists and State's nonproliferation sanctions block; the Commerce and ITAR lists restrict trade. */
const listTypeOf = (source: string): ListType => (/Treasury|Nonproliferation Sanctions/.test(source) ? 'sanctions' : 'export_control');

/** `Entity List (EL) - Bureau of Industry and Security` -> `US-CSL-EL`. */
const codeOf = (source: string) => `US-CSL-${(/\(([^)]+)\)/.exec(source)?.[1] ?? source).replace(/\s+List$/, '').replace(/\s+/g, '-')}`;

/**
 * trade.gov Consolidated Screening List CSV (13 US export-screening and sanctions lists): one row per
 * party, lists inside fields separated by `; `.
 */
export function parse(files: SourceFiles): SanctionEntity[] {
  const file = files.label(mainFile);
  const rows = readCsvWithHeader(files.text(mainFile), file, ['_id', 'source', 'name', 'type', 'alt_names', 'addresses', 'dates_of_birth']);
  return rows.map((row) => {
    const id = row.get('_id');
    const source = row.get('source');
    if (!id || !source) row.fail('row lacks _id or source');
    const name = row.get('name');
    const e = newEntity('us-csl', codeOf(source), listTypeOf(source), id, TYPES[row.get('type')] ?? guessType(name));
    addName(e, name, 'primary');
    for (const alt of splitList(row.get('alt_names'))) addName(e, alt, 'aka');
    for (const p of splitList(row.get('programs'))) addProgram(e, p);
    for (const d of splitList(row.get('dates_of_birth'))) addDob(e, d);
    for (const n of [...splitList(row.get('nationalities')), ...splitList(row.get('citizenships'))]) addNationality(e, n);
    for (const a of splitList(row.get('addresses'))) {
      const parts = a.split(',').map((p) => p.trim());
      const country = parts.length > 0 && /^[A-Z]{2}$/.test(parts[parts.length - 1]!) ? parts.pop()! : '';
      addAddress(e, parts, country);
    }
    // Treasury rows carry OFAC's entity number: the same party on the SDN or the consolidated non-SDN list.
    const ofac = row.get('entity_number');
    if (/^\d+$/.test(ofac) && listTypeOf(source) === 'sanctions' && !source.includes('Nonproliferation')) {
      addSameAs(e, `${source.startsWith('Specially Designated Nationals') ? 'ofac-sdn' : 'ofac-cons'}-${ofac}`);
    }
    // Treasury rows wrap the OFAC remark in parentheses: `(Linked To: HIZBALLAH)`.
    e.remarks = row.get('remarks').replace(/^\((.*)\)$/s, '$1');
    return e;
  });
}
