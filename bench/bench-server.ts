import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * Starts a bench's own file again as its server child (`WEIR_BENCH_SERVER=1`, a free port, warn
 * logs), so the load generator and the server do not share an event loop; the child prints
 * `URL <base>` once it serves (WEIR_BENCH_NODE_ARGS: more node options for it, e.g. `--cpu-prof`). Answers that base URL and the child.
 */
export async function spawnBenchServer(moduleUrl: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const extra = process.env.WEIR_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extra, ...nodeArgs, '--import', 'tsx', fileURLToPath(moduleUrl)], {
    env: { ...process.env, WEIR_BENCH_SERVER: '1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (l) => l.startsWith('URL ') && resolve(l.slice(4)));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, child };
}
