/**
 * Remotion's side of the rendering pair, run by bench/peers/render-remotion.ts in this folder:
 *   node render.mjs bundle <publicDir> <outDir>                          bundles the composition once
 *   node render.mjs render <serveUrl> <props.json> <output.mp4> <concurrency>   renders the film
 * with Debian's chromium (Remotion's headless-shell mode needs `--headless=old`, gone from Chrome),
 * H.264 by x264 `ultrafast`, CRF 23, as Weir renders it.
 */
import { readFileSync } from 'node:fs';
import { bundle } from '@remotion/bundler';
import { renderMedia, selectComposition } from '@remotion/renderer';

const [command, ...args] = process.argv.slice(2);
const browser = { browserExecutable: '/usr/bin/chromium', chromeMode: 'chrome-for-testing' };

if (command === 'bundle') {
  const [publicDir, outDir] = args;
  console.log(await bundle({ entryPoint: new URL('./src/index.jsx', import.meta.url).pathname, publicDir, outDir }));
} else if (command === 'render') {
  const [serveUrl, propsFile, output, concurrency] = args;
  const inputProps = JSON.parse(readFileSync(propsFile, 'utf8'));
  const composition = await selectComposition({ serveUrl, id: 'Film', inputProps, ...browser });
  await renderMedia({ composition, serveUrl, inputProps, codec: 'h264', x264Preset: 'ultrafast', crf: 23, outputLocation: output, concurrency: Number(concurrency), ...browser });
  // The file is complete here; closing Debian's chromium can still report its targets closed.
  process.exit(0);
} else {
  throw new Error('usage: node render.mjs bundle <publicDir> <outDir> | render <serveUrl> <props.json> <output> <concurrency>');
}
