/**
 * The Weir side of the transactions pairs: one Weir process, role `all` on the embedded defaults
 * (the API, the counters pipeline and the decisions consumer; embedded log, in-process window
 * store, chDB), as `npm start` runs it. Prints `URL <base>` once it serves.
 */
import { startProcess } from '../../../app/start.js';
import { countersService, createCounterReader } from '../../../services/counters.js';
import { rulesService } from '../../../services/rules.js';

const p = await startProcess({ role: 'all', env: process.env, handleSignals: true, services: [countersService, rulesService({ counters: createCounterReader })] });
console.log(`URL ${p.url}`);
