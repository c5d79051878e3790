import { createMemoryWindowStore } from '../infra/windows/memory/index.js';
import { windowStoreContract } from './contracts/windows.js';

// The in-process store of tests and benchmarks; the durable embedded default is test/windows-lmdb.test.ts.
windowStoreContract('memory', (opts) => createMemoryWindowStore({ ...opts }));
