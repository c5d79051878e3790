/** Pair 6: Weir's render against Remotion 4 (bench/peers/edge/render-pair.ts). */
import { runRenderPair } from './edge/render-pair.js';

await runRenderPair('remotion');
process.exit(0);
