import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { shouldRun } from './support/infra.js';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

// Needs java and the broker's jars (fetched from Maven Central): where CI starts its broker.
describe.runIf(shouldRun('kafkaBrokers'))('infra/scripts/kafka.sh', () => {
  it('formats the KRaft log directory with a cluster id that begins with "-"', async () => {
    const runDir = await mkdtemp(path.join(tmpdir(), 'weir-kafka-format-'));
    dirs.push(runDir);
    // A valid id (16 bytes, URL-safe base64) of the kind the script draws once in 64 starts.
    const clusterId = '-AbCdEfGhIjKlMnOpQrStQ';
    await run('bash', ['infra/scripts/kafka.sh', 'format'], {
      env: { ...process.env, WEIR_KAFKA_RUN_DIR: runDir, WEIR_KAFKA_CLUSTER_ID: clusterId, WEIR_KAFKA_PORT: '0', WEIR_KAFKA_CONTROLLER_PORT: '0' },
      timeout: 120_000,
    });
    const meta = await readFile(path.join(runDir, 'data', 'meta.properties'), 'utf8');
    expect(meta).toMatch(new RegExp(`^cluster\\.id=${clusterId}$`, 'm'));
  }, 180_000);
});
