import type { ChildProcess } from 'node:child_process';

/** Kills `child` if this process exits first (a pair stopped by a signal or a failure); answers the release. */
export function killOnExit(child: ChildProcess): () => void {
  const kill = () => void child.kill('SIGKILL');
  process.once('exit', kill);
  return () => void process.off('exit', kill);
}
