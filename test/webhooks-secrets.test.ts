import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalytics, runMigrations } from '../infra/analytics/index.js';
import type { Analytics } from '../infra/analytics/types.js';
import { manualClock } from '../infra/clock.js';
import { createRegistry, registryMigration } from '../pipelines/webhooks/registry.js';
import { secretBox, type SecretBox } from '../pipelines/webhooks/secret-box.js';

/**
 * The signing secrets the delivery worker asks for at every attempt, on chDB: opened once per
 * registration as the registry holds it, yet always the registration's own, current ones.
 */

let ch: Analytics;
const clock = manualClock(Date.UTC(2026, 10, 26, 12));
const inner = secretBox(randomBytes(32));
let opened = 0;
const box: SecretBox = { seal: (plain) => inner.seal(plain), open: (sealed) => (opened++, inner.open(sealed)) };
let registry: ReturnType<typeof createRegistry>;
const url = 'https://example.com/hooks';

beforeAll(async () => {
  ch = await createAnalytics({ username: 'default', password: '', database: 'weir', chdbPath: await mkdtemp(path.join(os.tmpdir(), 'weir-wh-secrets-')) });
  await runMigrations(ch, 'weir', [registryMigration]);
  registry = createRegistry({ analytics: ch, clock, box, maxPerOrg: 10 });
});
afterAll(async () => ch?.close());

/** What the worker does per attempt: the registration as the registry holds it now, then its secrets. */
const secretsNow = async (org: string, id: string) => registry.secrets((await registry.get(org, id))!);

describe('signing secrets per attempt', () => {
  it('opens each registration’s secret once across many attempts, and never answers another’s', async () => {
    const a = await registry.create('org_a', { event: 'workflow_run_started', url, secret: 'secret-of-org-a' });
    const b = await registry.create('org_b', { event: 'workflow_run_started', url, secret: 'secret-of-org-b' });
    const before = opened;
    for (let i = 0; i < 50; i++) {
      expect(await secretsNow('org_a', a.id)).toEqual({ current: 'secret-of-org-a' });
      expect(await secretsNow('org_b', b.id)).toEqual({ current: 'secret-of-org-b' });
    }
    expect(opened - before).toBe(2);
    expect(await registry.get('org_b', a.id)).toBeUndefined();
  });

  it('signs with a rotated secret at once, with the previous one only until its grace period ends', async () => {
    const r = await registry.create('org_c', { event: 'workflow_run_started', url, secret: 'first-secret' });
    expect(await secretsNow('org_c', r.id)).toEqual({ current: 'first-secret' });

    await registry.rotateSecret('org_c', r.id, 'second-secret', 60_000);
    expect(await secretsNow('org_c', r.id)).toEqual({ current: 'second-secret', previous: 'first-secret' });
    clock.advance(60_001);
    expect(await secretsNow('org_c', r.id)).toEqual({ current: 'second-secret' });

    await registry.update('org_c', r.id, { secret: 'third-secret' });
    expect(await secretsNow('org_c', r.id)).toEqual({ current: 'third-secret' });
    await registry.update('org_c', r.id, { secret: null });
    expect(await secretsNow('org_c', r.id)).toBeNull();
  });
});
