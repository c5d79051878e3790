import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { riskService } from '../services/risk.js';
import { riskClient } from './fixtures/risk-http.js';
import type { CarrierLookup } from '../domain/risk/phone.js';

/** HLR and SIM-swap reasons come only from a configured carrier-data provider (here a stand-in with fixed answers). */
const answers: Record<string, CarrierLookup> = {
  '+447911123451': { reachable: false },
  '+447911123452': { reachable: true, portedDaysAgo: 3 },
  '+447911123453': { reachable: true, simSwap: { risk: 'medium', daysAgo: 4 } },
};
let p: Awaited<ReturnType<typeof startTestProcess>>;
const asked: string[] = [];

beforeAll(async () => {
  p = await startTestProcess({
    services: [riskService({ phoneProvider: { lookup: async (e164) => (asked.push(e164), answers[e164] ?? { reachable: true }) } })],
  });
});
afterAll(async () => {
  await p?.stop();
});

describe('carrier-data provider', () => {
  it('adds the HLR, porting and SIM swap reasons of its answers', async () => {
    const c = riskClient(p.url, 'org_a', 'key_a');
    const reasons = async (phone: string) => (await c.check({ phone, context: { action: 'password_reset' } })).body.decision.reasons;
    expect(await reasons('+447911123451')).toEqual(['Phone number validation failed (HLR)']);
    expect(await reasons('+447911123452')).toEqual(['Recently ported number (SIM swap risk)']);
    expect(await reasons('+447911123453')).toEqual(['SIM swap detected (medium risk, 4 days ago)']);
    expect(await reasons('+447911123454')).toEqual([]);
    expect(asked).toEqual(['+447911123451', '+447911123452', '+447911123453', '+447911123454']);
  });
});
