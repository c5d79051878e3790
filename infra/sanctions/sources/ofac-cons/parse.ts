import type { SanctionEntity } from '../../../../domain/screening/entity.js';
import { parseOfacCsv, type OfacFiles } from '../ofac-csv.js';
import { addEnhancedXml } from '../ofac-enhanced-xml.js';
import type { SourceFiles } from '../types.js';

export const folder = 'ofac/consolidated_non_sdn';
export const mainFile = 'cons_prim.csv';

export const CONS_FILES: OfacFiles = { primary: 'cons_prim.csv', addresses: 'cons_add.csv', aliases: 'cons_alt.csv', comments: 'cons_comments.csv' };

/** The Enhanced XML of the same list, when present beside the CSV files, adds its typed relationships. */
export const ENHANCED_XML = 'CONS_ENHANCED.XML';

export function parse(files: SourceFiles): SanctionEntity[] {
  const entities = parseOfacCsv(files, CONS_FILES, 'ofac-cons', 'OFAC-CONS');
  addEnhancedXml(files, ENHANCED_XML, entities);
  return entities;
}
