import type { Download } from '../types.js';

/** No official machine-readable publication exists: the file is maintained by hand (see infra/sanctions/README.md). */
export const downloads: Download[] = [];
