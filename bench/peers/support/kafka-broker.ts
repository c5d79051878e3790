/**
 * A Kafka broker of the pair's own (infra/scripts/kafka.sh with its own run directory and ports):
 * Weir's topics and consumer groups have fixed names (`events`, `weir.counters`), so on the shared
 * broker a pair would share them with the tests other people run there.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../harness.js';

const run = promisify(execFile);
const script = path.join(repoRoot, 'infra/scripts/kafka.sh');

export interface OwnBroker {
  brokers: string[];
  pid: number;
  stop(): Promise<void>;
}

export async function startOwnBroker(): Promise<OwnBroker> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'peers-kafka-'));
  const env = { ...process.env, WEIR_KAFKA_RUN_DIR: dir, WEIR_KAFKA_PORT: '29092', WEIR_KAFKA_CONTROLLER_PORT: '29093' };
  const { stdout } = await run('bash', [script, 'start'], { env, maxBuffer: 1 << 20 });
  return {
    brokers: [stdout.trim().split('\n').at(-1)!],
    pid: Number(readFileSync(path.join(dir, 'kafka.pid'), 'utf8')),
    stop: async () => void (await run('bash', [script, 'stop'], { env })),
  };
}
