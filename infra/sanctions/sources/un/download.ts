import type { Download } from '../types.js';

export const downloads: Download[] = [{ file: 'UN_consolidated.xml', url: 'https://scsanctions.un.org/resources/xml/en/consolidated.xml' }];
