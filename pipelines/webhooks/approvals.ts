import type { Analytics, Migration } from '../../infra/analytics/types.js';
import type { Platform } from '../../infra/platform.js';
import { approvalFromRequest, decisionBlocker, type PendingApproval } from '../../domain/webhooks/approval.js';
import type { EventObserver, FanOut } from './fan-out.js';

/**
 * Approvals (CONTRACTS.md 7): every pbot_approval_requested seen by the service records a pending
 * approval, every pbot_approval_decided closes it. Deciding through the service claims the decision
 * in the window store first, so two deciders at once cannot both decide, then emits
 * pbot_approval_decided through the same fan-out as any event.
 */

export const approvalsMigration: Migration = {
  id: 'webhooks-003-approvals',
  statements: [
    `CREATE TABLE IF NOT EXISTS webhook_approvals (
      org_id String,
      run_id String,
      step_id String,
      approval_id String,
      approver_role Nullable(String),
      expires_at Nullable(String),
      status LowCardinality(String),
      decision Nullable(String),
      requested_at DateTime64(3, 'UTC'),
      version UInt64
    ) ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, run_id, step_id)`,
  ],
};

export type ApprovalStatus = 'pending' | 'approved' | 'rejected';
export interface Approval extends PendingApproval {
  status: ApprovalStatus;
  requested_at: string;
}

const CLAIM_NS = 'approval-decisions';
const CLAIM_TTL_MS = 90 * 86_400_000;

export class DecisionRefused extends Error {
  constructor(
    readonly reason: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

const COLUMNS = `run_id, step_id, approval_id, approver_role, expires_at, status, toString(requested_at) AS requested_at`;

function createStore(analytics: Analytics, now: () => number) {
  let version = 0;
  const nextVersion = () => (version = Math.max(version + 1, now() * 1000));
  const select = async (where: string, params: Record<string, unknown>): Promise<Approval[]> => {
    const rs = await analytics.query({
      query: `SELECT ${COLUMNS} FROM webhook_approvals FINAL WHERE ${where} ORDER BY requested_at DESC, step_id LIMIT 100`,
      query_params: params,
      format: 'JSONEachRow',
    });
    return ((await rs.json()) as Approval[]).map((a) => ({ ...a, requested_at: `${a.requested_at.replace(' ', 'T')}Z` }));
  };
  const write = (orgId: string, a: Omit<Approval, 'requested_at'> & { requested_at: number | string }, decision: unknown = null) =>
    analytics.insert({
      table: 'webhook_approvals',
      format: 'JSONEachRow',
      values: [{ org_id: orgId, ...a, requested_at: new Date(a.requested_at).toISOString(), decision: decision === null ? null : JSON.stringify(decision), version: nextVersion() }],
    });
  return {
    one: async (orgId: string, runId: string, stepId: string) =>
      (await select('org_id = {org:String} AND run_id = {run:String} AND step_id = {step:String}', { org: orgId, run: runId, step: stepId }))[0],
    ofRun: (orgId: string, runId: string) => select('org_id = {org:String} AND run_id = {run:String}', { org: orgId, run: runId }),
    byId: async (orgId: string, id: string) => (await select('org_id = {org:String} AND approval_id = {id:String}', { org: orgId, id }))[0],
    write,
  };
}

export function createApprovals(platform: Platform) {
  const store = createStore(platform.analytics, () => platform.clock.now());

  /** Keeps approvals current from the events that fan out (HTTP and topic alike). */
  const observer: EventObserver = async (events) => {
    for (const e of events) {
      if (e.event === 'pbot_approval_requested') {
        const a = approvalFromRequest(e.orgId, e.payload);
        const existing = await store.one(e.orgId, a.run_id, a.step_id);
        // A replayed request must not reopen a decided approval.
        if (!existing || existing.status === 'pending') await store.write(e.orgId, { ...a, status: 'pending', requested_at: platform.clock.now() });
      } else if (e.event === 'pbot_approval_decided') {
        const existing = await store.one(e.orgId, String(e.payload.run_id), String(e.payload.step_id));
        if (existing && existing.status === 'pending') await store.write(e.orgId, { ...existing, status: e.payload.approved === true ? 'approved' : 'rejected' }, e.payload);
      }
    }
  };

  return {
    observer,

    /** The run's pending approval (newest first), else its latest one. */
    async ofRun(orgId: string, runId: string): Promise<Approval | undefined> {
      const all = await store.ofRun(orgId, runId);
      return all.find((a) => a.status === 'pending') ?? all[0];
    },

    byId: (orgId: string, approvalId: string) => store.byId(orgId, approvalId),
    one: (orgId: string, runId: string, stepId: string) => store.one(orgId, runId, stepId),

    /** Decides an approval once; resolves with the emitted pbot_approval_decided payload once it is queued. */
    async decide(fanOut: FanOut, orgId: string, a: Approval, decision: { approved: boolean; comment?: string; decided_by: Record<string, string> }) {
      const blocker = decisionBlocker(a, platform.clock.now());
      if (blocker) throw new DecisionRefused('conflict', blocker);
      const [claimed] = await platform.windows.claim(orgId, CLAIM_NS, [a.approval_id], CLAIM_TTL_MS);
      if (!claimed) throw new DecisionRefused('conflict', 'the approval was already decided');
      const payload = {
        run_id: a.run_id,
        step_id: a.step_id,
        approval_id: a.approval_id,
        approved: decision.approved,
        comment: decision.comment ?? null,
        decided_at: new Date(platform.clock.now()).toISOString(),
        decided_by: decision.decided_by,
      };
      try {
        await fanOut([{ orgId, event: 'pbot_approval_decided', payload, seed: `approval:${a.approval_id}` }]);
      } catch (err) {
        await platform.windows.release(orgId, CLAIM_NS, [a.approval_id]);
        throw err;
      }
      return payload;
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
