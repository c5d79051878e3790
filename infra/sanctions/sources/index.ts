import type { ListSource } from './types.js';
import * as ofacSdn from './ofac-sdn/parse.js';
import { downloads as ofacSdnDownloads } from './ofac-sdn/download.js';
import * as ofacCons from './ofac-cons/parse.js';
import { downloads as ofacConsDownloads } from './ofac-cons/download.js';
import * as un from './un/parse.js';
import { downloads as unDownloads } from './un/download.js';
import * as uk from './uk/parse.js';
import { downloads as ukDownloads } from './uk/download.js';
import * as usCsl from './us-csl/parse.js';
import { downloads as usCslDownloads } from './us-csl/download.js';
import * as usDpl from './us-dpl/parse.js';
import { downloads as usDplDownloads } from './us-dpl/download.js';
import * as eu from './eu/parse.js';
import { downloads as euDownloads } from './eu/download.js';
import * as ngSanctions from './ng-sanctions/parse.js';
import { downloads as ngSanctionsDownloads } from './ng-sanctions/download.js';
import * as ngPep from './ng-pep/parse.js';
import { downloads as ngPepDownloads } from './ng-pep/download.js';

/** Every list Weir reads, in load order (earlier lists win ties between equal matches). A new list is a folder plus one line here. */
export const SOURCES: ListSource[] = [
  { id: 'ofac-sdn', ...ofacSdn, downloads: ofacSdnDownloads },
  { id: 'ofac-cons', ...ofacCons, downloads: ofacConsDownloads },
  { id: 'un', ...un, downloads: unDownloads },
  { id: 'eu', ...eu, downloads: euDownloads },
  { id: 'uk', ...uk, downloads: ukDownloads },
  { id: 'ng-sanctions', ...ngSanctions, downloads: ngSanctionsDownloads },
  { id: 'ng-pep', ...ngPep, downloads: ngPepDownloads },
  { id: 'us-csl', ...usCsl, downloads: usCslDownloads },
  { id: 'us-dpl', ...usDpl, downloads: usDplDownloads },
];
