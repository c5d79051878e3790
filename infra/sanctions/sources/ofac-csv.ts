import type { EntityType, SanctionEntity } from '../../../domain/screening/entity.js';
import { readCsv } from './csv.js';
import { addAddress, addDob, addName, addNationality, addProgram, newEntity } from './build.js';
import type { Download, SourceFiles } from './types.js';

/**
 * OFAC's legacy CSV layout, shared by the SDN list and the Consolidated (non-SDN) list: a primary
 * file plus addresses, alternate names and remark overflow, joined on `ent_num`. No header; the
 * empty marker is `-0-`; remarks are cut at 1,000 characters and continue in the comments file.
 */
export interface OfacFiles {
  primary: string;
  addresses: string;
  aliases: string;
  comments: string;
}

/** OFAC's Sanctions List Service publishes each file under its upper-case name. */
const OFAC_EXPORTS = 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports';

export const ofacDownloads = (names: OfacFiles): Download[] =>
  Object.values(names).map((file) => ({ file, url: `${OFAC_EXPORTS}/${file.toUpperCase()}` }));

const value = (field: string | undefined) => {
  const v = (field ?? '').trim();
  return v === '-0-' ? '' : v;
};

const TYPES: Record<string, EntityType> = { individual: 'person', vessel: 'vessel', aircraft: 'aircraft', '': 'organization' };

export function parseOfacCsv(files: SourceFiles, names: OfacFiles, listId: string, source: string): SanctionEntity[] {
  const byNum = new Map<string, SanctionEntity>();
  const entities: SanctionEntity[] = [];
  const file = files.label(names.primary);
  const table = readCsv(files.text(names.primary), file);
  table.rows.forEach((fields, row) => {
    const num = value(fields[0]);
    if (!/^\d+$/.test(num)) table.fail(row, `ent_num must be a number, got "${num.slice(0, 40)}"`);
    const type = TYPES[value(fields[2])] ?? table.fail(row, `unknown SDN_Type "${value(fields[2])}"`);
    if (fields.length < 12) table.fail(row, `expected 12 columns, got ${fields.length}`);
    const e = newEntity(listId, source, 'sanctions', num, type);
    addName(e, value(fields[1]), 'primary');
    for (const p of value(fields[3]).split('] [')) addProgram(e, p);
    e.remarks = value(fields[11]);
    byNum.set(num, e);
    entities.push(e);
  });
  const joined = (name: string, apply: (e: SanctionEntity, fields: string[]) => void) => {
    if (!files.has(name)) return;
    for (const fields of readCsv(files.text(name), files.label(name)).rows) {
      // Companion files may be newer than the primary file: rows of delisted parties are skipped.
      const e = byNum.get(value(fields[0]));
      if (e) apply(e, fields);
    }
  };
  joined(names.comments, (e, f) => {
    e.remarks += value(f[1]);
  });
  joined(names.aliases, (e, f) => addName(e, value(f[3]), (value(f[2]) as 'aka' | 'fka' | 'nka') || 'aka'));
  joined(names.addresses, (e, f) => addAddress(e, [value(f[2]), value(f[3])], value(f[4])));
  for (const e of entities) applyRemarkFacts(e);
  return entities;
}

/** Dates of birth, nationalities and some aliases live in the remark clauses (`DOB 17 Feb 1960; nationality Iran; a.k.a. 'X'`). */
function applyRemarkFacts(e: SanctionEntity): void {
  for (const clause of e.remarks.split(/;\s+/)) {
    const c = clause.trim().replace(/\.$/, '');
    const dob = /^(?:alt\. )?DOB (.+)$/.exec(c);
    if (dob) addDob(e, dob[1]!);
    const nat = /^(?:alt\. )?(?:nationality|citizen) (.+)$/.exec(c);
    if (nat) addNationality(e, nat[1]!);
    // OFAC writes its weak a.k.a.s (names too common to screen alone) only here, in single quotes;
    // a name alt.csv also gives is an ordinary alias (addName keeps the ordinary one). A former or
    // new name (f.k.a., n.k.a., a vessel's earlier names) identifies and is not weak.
    const alias = /^([afn])\.k\.a\.,? '(.+)'$/.exec(c);
    if (alias) addName(e, alias[2]!, `${alias[1]}ka` as 'aka' | 'fka' | 'nka', alias[1] === 'a');
  }
}
