import { ofacDownloads } from '../ofac-csv.js';
import { CONS_FILES, ENHANCED_XML } from './parse.js';

export const downloads = [
  ...ofacDownloads(CONS_FILES),
  { file: ENHANCED_XML, url: 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/CONS_ENHANCED.XML' },
];
