import type { Download } from '../types.js';

export const downloads: Download[] = [{ file: 'consolidated.csv', url: 'https://data.trade.gov/downloadable_consolidated_screening_list/v1/consolidated.csv' }];
