/**
 * The Weir side of the webhooks pair: one Weir process, role `all` on the embedded defaults (the
 * API, the intake and the delivery workers; embedded log, chDB delivery log), private targets
 * allowed so that it may deliver to 127.0.0.1. WEIR_BENCH_ROLE runs one half instead (`api`: POST
 * /events without delivery workers; `webhooks`: the delivery workers alone, no HTTP) for
 * bench/webhooks-halves.ts. Prints `URL <base>` once it serves (or has started its workers).
 */
import { startProcess } from '../../../app/start.js';
import { webhooksService } from '../../../services/webhooks.js';
import { ROLES, type Role } from '../../../services/types.js';

const role = (process.env.WEIR_BENCH_ROLE ?? 'all') as Role;
if (!ROLES.includes(role)) throw new Error(`WEIR_BENCH_ROLE ${role} is not a role`);
const p = await startProcess({ role, env: { ...process.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, handleSignals: true, services: [webhooksService] });
console.log(`URL ${p.url ?? 'none'}`);
