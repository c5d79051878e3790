import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * Starts a bench's own file again as its server child (`WEIR_BENCH_SERVER=1`, a free port, warn
 * logs), so the load generator and the server do not share an event loop; the child prints
 * `URL <base>` once it serves. It runs with the node options of `npm start` (package.json's start
 * script), so a bench measures the process users run; its modules load through tsx, not from the
 * tsc build `npm start` runs, which measured the same CPU an event on the counter stage
 * (bench/results/compiled-product.md); WEIR_BENCH_NODE_ARGS
 * adds more, e.g. `--cpu-prof`. With `ipc`, the child has an IPC channel (`process.send`) to the
 * parent. Answers that base URL and the child.
 */
export async function spawnBenchServer(moduleUrl: string, env: Record<string, string>, nodeArgs: string[] = [], options: { ipc?: boolean } = {}): Promise<{ url: string; child: ChildProcess }> {
  const extra = process.env.WEIR_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...startNodeOptions(), ...extra, ...nodeArgs, '--import', 'tsx', fileURLToPath(moduleUrl)], {
    env: { ...process.env, WEIR_BENCH_SERVER: '1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: options.ipc ? ['ignore', 'pipe', 'inherit', 'ipc'] : ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (l) => l.startsWith('URL ') && resolve(l.slice(4)));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, child };
}

/** The node options of package.json's start script (of the checkout at `root`, default this one). */
export function startNodeOptions(root?: string): string[] {
  const file = root ? path.join(root, 'package.json') : new URL('../package.json', import.meta.url);
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((arg) => arg.startsWith('--'));
}

/**
 * For a bench that runs Weir in its own process: stops unless that process has the node options of
 * `npm start`, so its figures are those of the process users run.
 */
export function requireStartNodeOptions(): void {
  const missing = startNodeOptions().filter((o) => !process.execArgv.includes(o));
  if (missing.length > 0) throw new Error(`run this bench with the node options of npm start: node --expose-gc ${startNodeOptions().join(' ')} --import tsx ${process.argv.slice(1).join(' ')}`);
}
