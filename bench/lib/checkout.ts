import { execFileSync } from 'node:child_process';

/** The commit a checkout stands on, for a report's header; says so when it has uncommitted changes. */
export function commitOf(root: string): string {
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
  const head = git('rev-parse', '--short', 'HEAD');
  return git('status', '--porcelain', '--untracked-files=no') !== '' ? `${head} with uncommitted changes` : head;
}
