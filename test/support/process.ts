import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startProcess, type RunningProcess } from '../../app/start.js';
import type { Role, ServiceModule } from '../../services/types.js';
import type { Clock } from '../../infra/clock.js';

/** One promise, not its value: processes started together must not each make a directory. */
let chdbPath: Promise<string> | undefined;
let databaseSeq = 0;

/**
 * Starts a Weir process on embedded defaults (or on what `env` selects) on a free port.
 * chDB allows one data directory per process, so every process a test file starts shares one
 * chDB directory and gets a database of its own unless `env.CLICKHOUSE_DATABASE` names one.
 */
export async function startTestProcess(opts: {
  services: ServiceModule[];
  env?: Record<string, string>;
  dataDir?: string;
  role?: Role;
  clock?: Clock;
}): Promise<RunningProcess & { url: string; dataDir: string }> {
  chdbPath ??= mkdtemp(path.join(os.tmpdir(), 'weir-chdb-'));
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'weir-data-')));
  const env: Record<string, string> = {
    PORT: '0',
    DATA_DIR: dataDir,
    CHDB_PATH: await chdbPath,
    CLICKHOUSE_DATABASE: `t${process.pid}_${++databaseSeq}`,
    LOG_LEVEL: 'silent',
    API_KEYS: 'org_a:key_a,org_b:key_b:starter',
    ...opts.env,
  };
  const p = await startProcess({ role: opts.role ?? 'all', env, services: opts.services, clock: opts.clock });
  return { ...p, url: p.url ?? '', dataDir };
}
