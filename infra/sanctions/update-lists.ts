/**
 * `npm run lists:update [-- --only=ofac-sdn,un]`: downloads fresh official list files into
 * SANCTIONS_DATA_DIR. A running Weir picks them up at its next reload (daily at 03:00 UTC).
 * Exits 1 when any list failed (offline, publisher down, file that does not parse).
 */
import path from 'node:path';
import { loadConfig } from '../config.js';
import { SOURCES } from './sources/index.js';
import { updateLists } from './update.js';

const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const unknown = only?.filter((id) => !SOURCES.some((s) => s.id === id)) ?? [];
if (unknown.length > 0) {
  console.error(`unknown list(s): ${unknown.join(', ')}; known: ${SOURCES.map((s) => s.id).join(', ')}`);
  process.exit(2);
}
const dir = path.resolve(loadConfig().SANCTIONS_DATA_DIR);
const results = await updateLists(dir, {
  sources: only ? SOURCES.filter((s) => only.includes(s.id)) : SOURCES,
  onResult: (r) => console.warn(`${r.list}: ${r.status} - ${r.detail}`),
});
console.warn(`lists in ${dir}: ${results.filter((r) => r.status === 'updated').length} updated, ${results.filter((r) => r.status === 'failed').length} failed`);
process.exit(results.some((r) => r.status === 'failed') ? 1 : 0);
