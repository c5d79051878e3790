/** Module hooks of compiled-product.mjs: a product module's source resolves to its dist/ build. */
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** What tsconfig.build.json compiles into dist/. */
const PRODUCT = new Set(['app', 'api', 'pipelines', 'schemas', 'infra', 'domain', 'services']);
let root = '';

export function initialize(data) {
  root = data.root;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (!resolved.url.startsWith('file:') || !resolved.url.endsWith('.ts')) return resolved;
  const source = fileURLToPath(resolved.url);
  const rel = path.relative(root, source);
  if (rel !== 'main.ts' && !PRODUCT.has(rel.split(path.sep)[0])) return resolved;
  const built = path.join(root, 'dist', rel.slice(0, -3) + '.js');
  const builtAt = statSync(built, { throwIfNoEntry: false })?.mtimeMs;
  if (builtAt === undefined || builtAt < statSync(source).mtimeMs) {
    throw new Error(`dist/ of ${root} does not hold a build of ${rel} as it is now: run npm run build there first`);
  }
  return { url: pathToFileURL(built).href, format: 'module', shortCircuit: true };
}
