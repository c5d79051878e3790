/**
 * `--import` this after `--import tsx` to run Weir's own modules from dist/, compiled by tsc, as
 * `npm start` runs them, while the bench's files still load through tsx. Why: tsx compiles with
 * esbuild's keepNames, which wraps every function expression in a naming call where it is created,
 * so a closure made per event costs about 35 times what it costs in the process users run
 * (bench/results/compiled-product.md). WEIR_COMPILED_ROOT names the checkout whose modules go to its
 * dist/ (default: the one holding this file); a dist/ module older than its source stops the run.
 */
import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(process.env.WEIR_COMPILED_ROOT ?? fileURLToPath(new URL('../..', import.meta.url)));
register('./compiled-product-hooks.mjs', import.meta.url, { data: { root } });
