import type { SanctionEntity } from '../../../../domain/screening/entity.js';
import { parseWeirCsv } from '../weir-csv.js';
import type { SourceFiles } from '../types.js';

export const folder = 'ng';
export const mainFile = 'sanctions.csv';

/** Nigeria Sanctions Committee list, kept by hand in Weir's documented CSV format. */
export const parse = (files: SourceFiles): SanctionEntity[] => parseWeirCsv(files, mainFile, 'ng-nsc', 'NG-NSC', 'sanctions');
