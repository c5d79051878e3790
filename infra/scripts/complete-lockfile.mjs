// Completes package-lock.json with the other platforms' optional packages (@chdb/lib-*, @rollup/*).
//
// The npm registry these machines reach serves only the packages of this platform, so `npm install`
// here leaves the other platforms' optional packages out of the lock file, and `npm ci` then
// refuses the lock as out of sync on every machine. Each missing entry is added with its exact
// version and its os/cpu/libc, so npm ci skips it on other platforms and fetches it where it fits.
// Run after every dependency change: node infra/scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'openharmony', 'win32'];
const CPU = ['arm64', 'arm', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return null;
  const tail = parts.at(-1);
  const libc = /^gnu/.test(tail) ? 'glibc' : /^musl/.test(tail) ? 'musl' : undefined;
  return { os: [os], cpu: [cpu], ...(os === 'linux' && libc ? { libc: [libc] } : {}) };
}

const file = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
let added = 0;
for (const [, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    const platform = platformOf(dep);
    if (lock.packages[key] || !platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[key] = { version, ...(pkg.dev ? { dev: true } : {}), optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform packages added`);
