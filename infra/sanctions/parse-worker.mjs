// Worker entry: the parsers are TypeScript, and a worker thread starts without the parent's
// loaders when spawned from vitest, so tsx is registered here, resolved from this repository.
import { register } from 'tsx/esm/api';

register();
await import('./parse-worker.ts');
