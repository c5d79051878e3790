/**
 * The Weir side of the rendering pairs: one Weir process, role `all` on the embedded defaults,
 * with the video service (the API, the render queue and one render worker). Prints `URL <base>`
 * once it serves.
 */
import { startProcess } from '../../../app/start.js';
import { videoService } from '../../../services/video.js';

const p = await startProcess({ role: 'all', env: process.env, handleSignals: true, services: [videoService] });
console.log(`URL ${p.url}`);
