/**
 * The Weir side of the webhooks pair: one Weir process, role `all` on the embedded defaults (the
 * API, the intake and the delivery workers; embedded log, chDB delivery log), private targets
 * allowed so that it may deliver to 127.0.0.1. Prints `URL <base>` once it serves.
 */
import { startProcess } from '../../../app/start.js';
import { webhooksService } from '../../../services/webhooks.js';

const p = await startProcess({ role: 'all', env: { ...process.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, handleSignals: true, services: [webhooksService] });
console.log(`URL ${p.url}`);
