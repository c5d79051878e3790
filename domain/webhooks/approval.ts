import { createHash } from 'node:crypto';

/**
 * Approvals as the webhooks service tracks them (Document 3 "Approval routing pattern",
 * CONTRACTS.md 7): a pending approval comes from a pbot_approval_requested event, names only the
 * approver role (the event's `approver_role`, or `request_payload.approver_role`), and is closed by
 * one pbot_approval_decided.
 */

export interface PendingApproval {
  run_id: string;
  step_id: string;
  approval_id: string;
  approver_role: string | null;
  expires_at: string | null;
}

export const approvalId = (orgId: string, runId: string, stepId: string): string =>
  `apr_${createHash('sha256').update(`${orgId}\n${runId}\n${stepId}`).digest('hex').slice(0, 24)}`;

const stringOrNull = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

export function approvalFromRequest(orgId: string, payload: Record<string, unknown>): PendingApproval {
  const request = typeof payload.request_payload === 'object' && payload.request_payload !== null ? (payload.request_payload as Record<string, unknown>) : {};
  const run = String(payload.run_id);
  const step = String(payload.step_id);
  return {
    run_id: run,
    step_id: step,
    approval_id: approvalId(orgId, run, step),
    approver_role: stringOrNull(payload.approver_role) ?? stringOrNull(request.approver_role),
    expires_at: stringOrNull(payload.expires_at) ?? stringOrNull(request.expires_at),
  };
}

/** Why an approval cannot be decided now, or null when it can. */
export function decisionBlocker(a: { status: string; expires_at: string | null }, now: number): string | null {
  if (a.status !== 'pending') return `the approval was already decided (${a.status})`;
  if (a.expires_at !== null && Date.parse(a.expires_at) <= now) return `the approval expired at ${a.expires_at}`;
  return null;
}

/** Whether a signed-in SDK user may decide an approval: any holder of its role (no per-person assignment). */
export const mayDecide = (approverRoles: readonly string[], approverRole: string | null): boolean =>
  approverRole !== null && approverRoles.includes(approverRole);
