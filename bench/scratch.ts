import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Imported first by every benchmark: its data (logs, chDB parts, journals; a few hundred MB a
 * run) goes under one scratch directory, set as TMPDIR so child processes use it too, and removed
 * when the benchmark exits.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-bench-run-'));
process.env.TMPDIR = dir;
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
