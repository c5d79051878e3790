import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * First-use installs of the peers, kept out of `npm ci` and `npm test`: Debian packages through
 * apt-get, npm packages into a peer's own folder. Each answers one sentence for the pair's notes,
 * saying what was installed and how long it took, or that nothing was needed.
 */

const run = promisify(execFile);
const BIG_OUTPUT = 64 * 1024 * 1024;

const seconds = (since: number): string => ((performance.now() - since) / 1000).toFixed(0);

async function installed(pkg: string): Promise<boolean> {
  try {
    const { stdout } = await run('dpkg-query', ['-W', '-f', '${Status}', pkg]);
    return stdout.includes('install ok installed');
  } catch {
    return false;
  }
}

/** Installs the Debian packages not yet installed (as root: the bench machines run as root). */
export async function aptInstall(packages: string[]): Promise<string> {
  const missing: string[] = [];
  for (const p of packages) if (!(await installed(p))) missing.push(p);
  if (missing.length === 0) return `Debian ${packages.join(', ')} already installed`;
  const started = performance.now();
  console.error(`installing ${missing.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update', '-q'], { env, maxBuffer: BIG_OUTPUT });
  await run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], { env, maxBuffer: BIG_OUTPUT });
  return `Debian ${missing.join(', ')} installed with apt-get on first use in ${seconds(started)} s`;
}

/** `npm ci` (or `npm install` without a lockfile) in a peer's folder, unless its node_modules is there. */
export async function npmInstall(dir: string): Promise<string> {
  const name = path.basename(dir);
  if (existsSync(path.join(dir, 'node_modules', '.package-lock.json'))) return `${name}'s npm packages already installed in its folder`;
  const started = performance.now();
  console.error(`installing ${name}'s npm packages in ${dir}`);
  const ci = existsSync(path.join(dir, 'package-lock.json'));
  await run('npm', [ci ? 'ci' : 'install', '--no-audit', '--no-fund'], { cwd: dir, maxBuffer: BIG_OUTPUT });
  return `${name}'s npm packages installed in its own folder on first use in ${seconds(started)} s`;
}
