import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, rename, writeFile, copyFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The studio's browser bundle: `studio/main.ts` (with CodeMirror and the compiler's own tables from
 * domain/video) and its service worker `studio/sw.ts`, bundled by esbuild into `dist/studio/` beside
 * a copy of `studio/index.html`. `npm run build` (the `prepare` step) makes it; a process started
 * from source (`npm run dev`, the tests) makes it when it is missing or older than its sources.
 * Files are written under temporary names and renamed, so processes building at once never serve
 * half a file.
 */

/** The package root: the nearest folder above this file holding package.json (source or dist/). */
export function packageRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const studioDir = (root = packageRoot()) => path.join(root, 'dist', 'studio');

/** Files served as they are, next to the bundle. */
const STATIC_FILES = ['index.html'];
/** Folders whose changes make a bundle stale. */
const SOURCES = ['studio', path.join('domain', 'video')];

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Running from TypeScript sources (tsx), not from the compiled dist/. */
const fromSource = import.meta.url.endsWith('.ts');

/** Whether the bundle is missing, or (run from source) older than its sources. */
export function bundleIsStale(root = packageRoot()): boolean {
  const out = path.join(studioDir(root), 'app.js');
  if (!existsSync(out)) return true;
  if (!fromSource) return false;
  const sources = SOURCES.map((s) => path.join(root, s)).filter((s) => existsSync(s));
  return sources.length > 0 && Math.max(...sources.map(newest)) > statSync(out).mtimeMs;
}

export async function buildStudio(root = packageRoot()): Promise<void> {
  // esbuild is a build tool (a dev dependency): imported only when a bundle is made.
  const { build } = await import('esbuild');
  const out = studioDir(root);
  await mkdir(out, { recursive: true });
  const result = await build({
    entryPoints: { app: path.join(root, 'studio', 'main.ts'), sw: path.join(root, 'studio', 'sw.ts') },
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: false,
    write: false,
    outdir: out,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const tag = `.${process.pid}.tmp`;
  for (const f of result.outputFiles) {
    await writeFile(f.path + tag, f.contents);
    await rename(f.path + tag, f.path);
  }
  for (const name of STATIC_FILES) {
    const to = path.join(out, name);
    await copyFile(path.join(root, 'studio', name), to + tag);
    await rename(to + tag, to);
  }
}

/** Builds the bundle when it is stale; a deployed dist/ without sources is served as it is. */
export async function ensureStudio(root = packageRoot()): Promise<string> {
  if (bundleIsStale(root)) await buildStudio(root);
  return studioDir(root);
}

// `node dist/api/studio/bundle.js` (the build step): bundle now.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await buildStudio();
}
