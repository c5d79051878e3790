import { ofacDownloads } from '../ofac-csv.js';
import { SDN_FILES } from './parse.js';

export const downloads = ofacDownloads(SDN_FILES);
