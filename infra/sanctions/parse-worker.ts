import { parentPort, workerData } from 'node:worker_threads';
import { parseLists } from './parse-lists.js';

const { dir, ids } = workerData as { dir: string; ids: string[] };
const port = parentPort!;
await parseLists(
  dir,
  ids,
  (m) => port.postMessage(m),
  () => new Promise((resolve) => port.once('message', () => resolve())),
);
