import type { EntityType, SanctionEntity } from '../../../../domain/screening/entity.js';
import { addAddress, addDob, addName, addNationality, addProgram, newEntity } from '../build.js';
import { readCsvWithHeader } from '../csv.js';
import type { SourceFiles } from '../types.js';

export const folder = 'eu';
export const mainFile = 'csvFullSanctionsList_1_1.csv';

/** Subject type appears as a word (`person`, `enterprise`) or a one-letter classification code (P, E). */
const typeOf = (...codes: string[]): EntityType | undefined => {
  for (const c of codes.map((s) => s.toLowerCase())) {
    if (c === 'person' || c === 'p') return 'person';
    if (c === 'enterprise' || c === 'e') return 'organization';
  }
  return undefined;
};

/**
 * EU Financial Sanctions Files, CSV 1.1 (`;`-separated, one header row). Every name alias, address,
 * birth date, identification and citizenship of an entity is its own row, keyed by
 * `Entity_LogicalId`; the columns of the other parts are empty on such a row.
 */
export function parse(files: SourceFiles): SanctionEntity[] {
  const file = files.label(mainFile);
  const rows = readCsvWithHeader(files.text(mainFile), file, ['Entity_LogicalId', 'NameAlias_WholeName'], { delimiter: ';' });
  const byId = new Map<string, SanctionEntity>();
  for (const row of rows) {
    const id = row.get('Entity_LogicalId');
    if (!/^\d+$/.test(id)) row.fail(`Entity_LogicalId must be a number, got "${id.slice(0, 40)}"`);
    let e = byId.get(id);
    if (!e) {
      const type = typeOf(row.get('Entity_SubjectType'), row.get('Entity_SubjectType_ClassificationCode')) ?? row.fail(`unknown subject type "${row.get('Entity_SubjectType')}"`);
      e = newEntity('eu', 'EU-FSF', 'sanctions', id, type);
      e.remarks = row.get('Entity_Remark');
      byId.set(id, e);
    }
    const whole = row.get('NameAlias_WholeName') || [row.get('NameAlias_FirstName'), row.get('NameAlias_MiddleName'), row.get('NameAlias_LastName')].filter(Boolean).join(' ');
    addName(e, whole, 'aka');
    addProgram(e, row.get('Entity_Regulation_Programme'));
    const dob = row.get('BirthDate_BirthDate') || row.get('BirthDate_Year');
    if (dob) addDob(e, dob);
    const citizenship = row.get('Citizenship_CountryIso2Code') || row.get('Citizenship_CountryDescription');
    if (citizenship && citizenship !== '00') addNationality(e, citizenship);
    addAddress(e, ['Address_Street', 'Address_PoBox', 'Address_City', 'Address_ZipCode', 'Address_Region'].map((c) => row.get(c)), row.get('Address_CountryDescription'));
  }
  return [...byId.values()];
}
