import type { SanctionEntity } from '../../../../domain/screening/entity.js';
import { addAddress, addDob, addName, addNationality, addProgram, newEntity } from '../build.js';
import { list, readXml, text } from '../xml.js';
import { ListParseError, type SourceFiles } from '../types.js';

export const folder = 'un';
export const mainFile = 'UN_consolidated.xml';

type Node = Record<string, unknown>;

const ARRAYS = new Set([
  'INDIVIDUAL', 'ENTITY', 'VALUE', 'INDIVIDUAL_ALIAS', 'ENTITY_ALIAS', 'INDIVIDUAL_ADDRESS', 'ENTITY_ADDRESS',
  'INDIVIDUAL_DATE_OF_BIRTH', 'INDIVIDUAL_PLACE_OF_BIRTH', 'INDIVIDUAL_DOCUMENT',
]);

const values = (node: unknown): string[] => list((node as Node | undefined)?.VALUE).map(text).filter(Boolean);

/** UN Security Council Consolidated List XML (schema sc-sanctions.xsd): individuals and entities. */
export function parse(files: SourceFiles): SanctionEntity[] {
  const file = files.label(mainFile);
  const doc = readXml(files.text(mainFile), file, ARRAYS);
  const root = doc.CONSOLIDATED_LIST as Node | undefined;
  if (!root) throw new ListParseError(file, null, 'root element CONSOLIDATED_LIST missing');
  const out: SanctionEntity[] = [];
  const build = (n: Node, person: boolean) => {
    const ref = text(n.REFERENCE_NUMBER) || text(n.DATAID);
    if (!ref) throw new ListParseError(file, null, `a ${person ? 'INDIVIDUAL' : 'ENTITY'} has neither REFERENCE_NUMBER nor DATAID`);
    const e = newEntity('un', 'UN', 'sanctions', ref, person ? 'person' : 'organization');
    addName(e, [n.FIRST_NAME, n.SECOND_NAME, n.THIRD_NAME, n.FOURTH_NAME].map(text).filter(Boolean).join(' '), 'primary');
    for (const a of list<Node>(person ? n.INDIVIDUAL_ALIAS : n.ENTITY_ALIAS)) {
      // QUALITY `Low`: the UN's weak alias, too common to identify the party alone.
      addName(e, text(a.ALIAS_NAME), /f\.k\.a/i.test(text(a.QUALITY)) ? 'fka' : 'aka', /^low$/i.test(text(a.QUALITY)));
    }
    addName(e, text(n.NAME_ORIGINAL_SCRIPT), 'original_script');
    addProgram(e, text(n.UN_LIST_TYPE));
    for (const nat of values(n.NATIONALITY)) addNationality(e, nat);
    for (const d of list<Node>(n.INDIVIDUAL_DATE_OF_BIRTH)) {
      const from = text(d.FROM_YEAR);
      const to = text(d.TO_YEAR);
      addDob(e, text(d.DATE) || text(d.YEAR) || (from && to ? `${from} to ${to}` : from));
    }
    for (const a of list<Node>(person ? n.INDIVIDUAL_ADDRESS : n.ENTITY_ADDRESS)) {
      addAddress(e, [text(a.STREET), text(a.CITY), text(a.STATE_PROVINCE), text(a.ZIP_CODE)], text(a.COUNTRY));
    }
    e.remarks = text(n.COMMENTS1);
    out.push(e);
  };
  for (const n of list<Node>((root.INDIVIDUALS as Node | undefined)?.INDIVIDUAL)) build(n, true);
  for (const n of list<Node>((root.ENTITIES as Node | undefined)?.ENTITY)) build(n, false);
  return out;
}
