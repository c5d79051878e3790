import { parseArgs } from 'node:util';
import { startProcess } from './app/start.js';
import { ROLES, type Role } from './services/types.js';

const { values } = parseArgs({ options: { role: { type: 'string', default: 'all' } }, allowPositionals: false });
if (!(ROLES as readonly string[]).includes(values.role!)) {
  console.error(`unknown --role=${values.role}; expected one of ${ROLES.join(', ')}`);
  process.exit(2);
}
await startProcess({ role: values.role as Role, env: process.env, handleSignals: true });
