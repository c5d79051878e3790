import type { SanctionEntity } from '../../../../domain/screening/entity.js';
import { parseWeirCsv } from '../weir-csv.js';
import type { SourceFiles } from '../types.js';

export const folder = 'ng';
export const mainFile = 'pep.csv';

/** Nigeria politically exposed persons, in Weir's documented CSV format; a PEP match is REVIEW, never BLOCK. */
export const parse = (files: SourceFiles): SanctionEntity[] => parseWeirCsv(files, mainFile, 'ng-pep', 'NG-PEP', 'pep');
