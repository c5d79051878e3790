/**
 * The Weir side's process: the counters service alone (intake, live values, the counter pipeline
 * and its flusher), configured by the environment, with the node options of `npm start` (it is
 * started by bench/bench-server.ts's spawnBenchServer). Prints `URL <base>` once it serves.
 */
import { startProcess } from '../../../app/start.js';
import { countersService } from '../../../services/counters.js';

const p = await startProcess({ role: 'all', services: [countersService], env: process.env, handleSignals: true });
console.log(`URL ${p.url}`);
