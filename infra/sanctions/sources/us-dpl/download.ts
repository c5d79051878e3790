import type { Download } from '../types.js';

export const downloads: Download[] = [{ file: 'dpl.txt', url: 'https://www.bis.doc.gov/dpl/dpl.txt' }];
