/** Pair 6: Weir's render against its own ffmpeg command line run bare (bench/peers/edge/render-pair.ts). */
import { runRenderPair } from './edge/render-pair.js';

await runRenderPair('bare-ffmpeg');
process.exit(0);
