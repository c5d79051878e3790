import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createEmbeddedBus } from '../infra/bus/embedded/index.js';
import { busCrashSuite } from './fixtures/bus-crash-harness.js';

busCrashSuite({
  name: 'embedded log',
  async setup() {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-bus-crash-'));
    // This process holds the writer lock; the child consumes and commits from the same directory.
    const bus = await createEmbeddedBus({ dir, log: pino({ level: 'silent' }) });
    return { bus, childEnv: { WEIR_CRASH_BUS_DIR: dir } };
  },
});
