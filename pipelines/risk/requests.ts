import type { Analytics } from '../../infra/analytics/types.js';
import type { WindowStore } from '../../infra/windows/types.js';
import type { Outcome } from '../../domain/risk/actions.js';
import { RECENT_NAMESPACE } from './checker.js';

export interface KnownRequest {
  outcome: Outcome | null;
  user_id: string | null;
}

/**
 * Finds a check by request id: in ClickHouse once the pipeline wrote it, else among the ids the
 * window store remembers for an hour (the pipeline's lag). A claim that succeeds means the id was
 * not remembered, and is given back at once.
 */
export async function findRequest(deps: { analytics: Analytics; windows: WindowStore }, orgId: string, requestId: string): Promise<KnownRequest | null> {
  const rs = await deps.analytics.query({
    query: 'SELECT outcome, user_id FROM risk_checks FINAL WHERE org_id = {org:String} AND request_id = {id:String} LIMIT 1',
    query_params: { org: orgId, id: requestId },
    format: 'JSONEachRow',
  });
  const [row] = await rs.json<{ outcome: Outcome; user_id: string | null }>();
  if (row) return row;
  const [claimed] = await deps.windows.claim(orgId, RECENT_NAMESPACE, [requestId], 1);
  if (claimed) {
    await deps.windows.release(orgId, RECENT_NAMESPACE, [requestId]);
    return null;
  }
  return { outcome: null, user_id: null };
}
