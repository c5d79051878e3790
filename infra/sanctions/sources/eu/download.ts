import type { Download } from '../types.js';

/** The public token is the one the EU publishes on data.europa.eu for the FSF files. */
export const downloads: Download[] = [
  { file: 'csvFullSanctionsList_1_1.csv', url: 'https://webgate.ec.europa.eu/fsd/fsf/public/files/csvFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw' },
];
