import { describe, expect, it } from 'vitest';
import { approvalFromRequest, approvalId, decisionBlocker, mayDecide } from './approval.js';
import { signSdkToken, verifySdkToken } from './sdk-token.js';

describe('approvals', () => {
  it('takes the approver role from the event, else from request_payload', () => {
    expect(approvalFromRequest('o', { run_id: 'r', step_id: 's', approver_role: 'cfo', request_payload: { approver_role: 'x' } }).approver_role).toBe('cfo');
    const a = approvalFromRequest('o', { run_id: 'r', step_id: 's', request_payload: { approver_role: 'legal', expires_at: '2030-01-01T00:00:00Z' } });
    expect(a).toEqual({ run_id: 'r', step_id: 's', approval_id: approvalId('o', 'r', 's'), approver_role: 'legal', expires_at: '2030-01-01T00:00:00Z' });
    expect(approvalId('o', 'r', 's')).not.toBe(approvalId('o2', 'r', 's'));
  });

  it('is decided once, before it expires, by a holder of its role', () => {
    expect(decisionBlocker({ status: 'pending', expires_at: null }, 0)).toBeNull();
    expect(decisionBlocker({ status: 'approved', expires_at: null }, 0)).toMatch(/already decided/);
    expect(decisionBlocker({ status: 'pending', expires_at: '2000-01-01T00:00:00Z' }, Date.now())).toMatch(/expired/);
    expect(mayDecide(['legal', 'cfo'], 'cfo')).toBe(true);
    expect(mayDecide(['legal'], 'cfo')).toBe(false);
    expect(mayDecide(['legal'], null)).toBe(false);
  });
});

describe('SDK session tokens', () => {
  const secret = 'a-signing-secret-of-some-length';
  it('verify when signed with the secret and unexpired', () => {
    const t = signSdkToken(secret, { org: 'o', sub: 'u', exp: 2_000 });
    expect(verifySdkToken(secret, t, 1_000_000)).toEqual({ org: 'o', sub: 'u', exp: 2_000 });
    expect(verifySdkToken(secret, t, 2_000_000)).toBeNull();
    expect(verifySdkToken('another-secret-entirely', t, 1_000_000)).toBeNull();
    const [p, payload, sig] = t.split('.');
    const forged = Buffer.from(JSON.stringify({ org: 'o2', sub: 'u', exp: 2_000 })).toString('base64url');
    expect(verifySdkToken(secret, `${p}.${forged}.${sig}`, 1_000_000)).toBeNull();
    expect(payload).toBeTruthy();
  });
});
