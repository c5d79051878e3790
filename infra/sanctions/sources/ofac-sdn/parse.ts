import type { SanctionEntity } from '../../../../domain/screening/entity.js';
import { parseOfacCsv, type OfacFiles } from '../ofac-csv.js';
import type { SourceFiles } from '../types.js';

export const folder = 'ofac';
export const mainFile = 'sdn.csv';

export const SDN_FILES: OfacFiles = { primary: 'sdn.csv', addresses: 'add.csv', aliases: 'alt.csv', comments: 'sdn_comments.csv' };

export const parse = (files: SourceFiles): SanctionEntity[] => parseOfacCsv(files, SDN_FILES, 'ofac-sdn', 'OFAC-SDN');
