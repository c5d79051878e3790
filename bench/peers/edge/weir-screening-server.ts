/**
 * The Weir side of the screening pair: one Weir process, role `all` on the embedded defaults, with
 * the screening service and every shared list loaded (SANCTIONS_DATA_DIR). Prints `URL <base>`
 * once it serves.
 */
import { startProcess } from '../../../app/start.js';
import { screeningService } from '../../../services/screening.js';

const p = await startProcess({ role: 'all', env: process.env, handleSignals: true, services: [screeningService] });
console.log(`URL ${p.url}`);
