import type { Download } from '../types.js';

/** OFSI publishes the ConList as CSV at this address (the workbook form is the same layout). */
export const downloads: Download[] = [{ file: 'UK_Sanctions_List.csv', url: 'https://ofsistorage.blob.core.windows.net/publishlive/2022format/ConList.csv' }];
