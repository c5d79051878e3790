import { createHash } from 'node:crypto';
import type { SanctionEntity } from '../../../../domain/screening/entity.js';
import { addAddress, addName, newEntity } from '../build.js';
import { readCsvWithHeader } from '../csv.js';
import type { SourceFiles } from '../types.js';
import { guessType } from '../guess-type.js';

export const folder = 'us_csl';
export const mainFile = 'dpl.txt';

/**
 * BIS Denied Persons List, tab-separated with quoted fields. The file has no id column: the id is
 * a digest of name and effective date, which stays stable across downloads.
 */
export function parse(files: SourceFiles): SanctionEntity[] {
  const file = files.label(mainFile);
  const rows = readCsvWithHeader(files.text(mainFile), file, ['Name', 'Street_Address', 'City', 'State', 'Country', 'Postal_Code', 'Effective_Date'], { delimiter: '\t' });
  const byId = new Map<string, SanctionEntity>();
  for (const row of rows) {
    const name = row.get('Name');
    if (!name) row.fail('row has no Name');
    const id = createHash('sha1').update(`${name}|${row.get('Effective_Date')}`).digest('hex').slice(0, 16);
    let e = byId.get(id);
    if (!e) {
      // One denial order can list a party at several addresses, one row each.
      e = newEntity('us-dpl', 'US-DPL', 'export_control', id, guessType(name));
      addName(e, name, 'primary');
      e.remarks = [row.get('Action'), row.get('FR_Citation')].filter(Boolean).join('; ');
      byId.set(id, e);
    }
    addAddress(e, [row.get('Street_Address'), row.get('City'), row.get('State'), row.get('Postal_Code')], row.get('Country'));
  }
  return [...byId.values()];
}
