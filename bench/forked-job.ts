import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * A load client run as a child process (`fork`), so its requests and timers share neither the event
 * loop nor the CPU account of the Weir process it loads. The child answers each job with one message,
 * `{ ok: true, ...result }` or `{ ok: false, error }` (bench/soak-transactions.ts, bench/counters-load.ts).
 */
export function forkedJob<J extends object, R>(moduleUrl: URL) {
  const c = fork(fileURLToPath(moduleUrl), { execArgv: ['--import', 'tsx'] });
  return {
    run: (job: J) =>
      new Promise<R>((resolve, reject) => {
        const exited = (code: number | null) => reject(new Error(`${moduleUrl.pathname} exited with ${code}`));
        c.once('exit', exited);
        c.once('message', (m: { ok: boolean; error?: string } & R) => {
          c.off('exit', exited);
          if (m.ok) resolve(m);
          else reject(new Error(m.error));
        });
        c.send(job as Parameters<typeof c.send>[0]);
      }),
    stop: () => c.kill(),
  };
}
