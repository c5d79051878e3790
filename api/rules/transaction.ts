import type { Router } from 'express';
import { badRequest } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import { UnknownRulesError } from '../../pipelines/rules/engine.js';
import { rulesMetrics } from '../../pipelines/rules/metrics.js';
import { publishTransaction, serialise } from '../../pipelines/rules/transactions-topic.js';
import { sendJson } from './envelope.js';
import { param, type RulesDeps } from './deps.js';

function ruleIdsOf(q: unknown): string[] | undefined {
  if (q === undefined) return undefined;
  const ids = (Array.isArray(q) ? q : [q]).flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw badRequest('ruleIds must list at least one rule id (comma-separated)');
  return ids;
}

/**
 * Evaluates a transaction synchronously, publishes it with its decision to `transactions`, and
 * answers once the log holds it; the decisions consumer writes it to ClickHouse.
 */
export function mountTransaction(r: Router, d: RulesDeps): void {
  const metrics = rulesMetrics(d.platform.metrics);
  r.post('/transaction/:orgId', async (req, res) => {
    const orgId = param(req, 'orgId');
    const ruleIds = ruleIdsOf(req.query.ruleIds);
    const ctx = await d.engine.context(orgId);
    const tx = parseOr400(ctx.transaction, req.body, 'transaction');
    const decided = metrics.decide.startTimer();
    let result;
    try {
      result = await d.engine.decide(orgId, tx, ruleIds);
      decided();
    } catch (err) {
      if (err instanceof UnknownRulesError) throw badRequest(err.message);
      throw err;
    }
    const published = metrics.publish.startTimer();
    await publishTransaction(d.platform, orgId, tx, serialise(result));
    published();
    const processed = result.decision.processed_rules.length;
    const triggered = result.decision.triggered_rules_count;
    const message = `${processed} rule${processed === 1 ? '' : 's'} processed, ${triggered} triggered`;
    const trace = result.trace ? `,"trace":${JSON.stringify(result.trace)}` : '';
    sendJson(res, 200, `{"success":true,"data":{"message":${JSON.stringify(message)},"processedRules":${result.rulesJson},"triggeredRulesCount":${triggered}${trace}}}`);
  });
}
