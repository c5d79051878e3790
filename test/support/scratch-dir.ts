import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Every test writes its logs, chDB data and window journals under os.tmpdir(). One scratch
 * directory per run, set as TMPDIR before the test processes fork, is removed when the run ends,
 * so runs on a shared machine leave nothing behind (a run writes a few GB).
 */
export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-test-run-'));
  process.env.TMPDIR = dir;
  return () => rm(dir, { recursive: true, force: true });
}
