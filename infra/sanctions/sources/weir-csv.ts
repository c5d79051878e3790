import { ENTITY_TYPES, type EntityType, type ListType, type SanctionEntity } from '../../../domain/screening/entity.js';
import { parseDob } from '../../../domain/screening/facts.js';
import { addAddress, addDob, addName, addNationality, addProgram, newEntity } from './build.js';
import { readCsvWithHeader, splitList } from './csv.js';
import type { SourceFiles } from './types.js';

/**
 * Weir's documented CSV for lists that publish no machine-readable format (Nigeria's sanctions
 * committee list and PEP list; see infra/sanctions/README.md). One row per party; multi-valued
 * fields separated by `;`.
 */
export const WEIR_CSV_COLUMNS = ['id', 'name', 'type', 'aliases', 'dates_of_birth', 'nationalities', 'address', 'country', 'programs', 'remarks'];

export function parseWeirCsv(files: SourceFiles, file: string, listId: string, source: string, listType: ListType): SanctionEntity[] {
  const label = files.label(file);
  const seen = new Set<string>();
  return readCsvWithHeader(files.text(file), label, WEIR_CSV_COLUMNS).map((row) => {
    const id = row.get('id');
    const name = row.get('name');
    const type = row.get('type') as EntityType;
    if (!/^[A-Za-z0-9._-]+$/.test(id)) row.fail(`id must be letters, digits, dot, dash or underscore, got "${id.slice(0, 40)}"`);
    if (seen.has(id)) row.fail(`id "${id}" repeats an earlier row`);
    seen.add(id);
    if (!name) row.fail('name is empty');
    if (!ENTITY_TYPES.includes(type)) row.fail(`type must be one of ${ENTITY_TYPES.join(', ')}, got "${type}"`);
    const e = newEntity(listId, source, listType, id, type);
    addName(e, name, 'primary');
    for (const a of splitList(row.get('aliases'))) addName(e, a, 'aka');
    for (const d of splitList(row.get('dates_of_birth'))) {
      if (!parseDob(d)) row.fail(`date of birth "${d}" is not YYYY-MM-DD, YYYY-MM, YYYY or dd/mm/yyyy`);
      addDob(e, d);
    }
    for (const n of splitList(row.get('nationalities'))) addNationality(e, n);
    addAddress(e, [row.get('address')], row.get('country'));
    for (const p of splitList(row.get('programs'))) addProgram(e, p);
    e.remarks = row.get('remarks');
    return e;
  });
}
