import type { Router } from 'express';
import { badRequest } from '../http/errors.js';
import type { LaneRoute } from '../http/lane.js';
import { parseOr400 } from '../http/validate.js';
import { UnknownRulesError } from '../../pipelines/rules/engine.js';
import { rulesMetrics } from '../../pipelines/rules/metrics.js';
import { publishTransaction, serialise } from '../../pipelines/rules/transactions-topic.js';
import { sendJson } from './envelope.js';
import { param, type RulesDeps } from './deps.js';

const PATH = '/transaction/:orgId';

/** `ruleIds` as given once or more, each a comma-separated list; undefined when absent. */
function ruleIdsOf(given: string[] | undefined): string[] | undefined {
  if (given === undefined) return undefined;
  const ids = given.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw badRequest('ruleIds must list at least one rule id (comma-separated)');
  return ids;
}

/**
 * Evaluates a transaction synchronously, publishes it with its decision to `transactions`, and
 * answers (the envelope's JSON) once the log holds it; the decisions consumer writes it to ClickHouse.
 */
function transactionAnswer(d: RulesDeps) {
  const metrics = rulesMetrics(d.platform.metrics);
  return async (orgId: string, ruleIdsGiven: string[] | undefined, body: unknown): Promise<string> => {
    const ruleIds = ruleIdsOf(ruleIdsGiven);
    const ctx = await d.engine.context(orgId);
    const tx = parseOr400(ctx.transaction, body, 'transaction');
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
    await publishTransaction(d.platform, d.signer, orgId, tx, serialise(result));
    published();
    const processed = result.decision.processed_rules.length;
    const triggered = result.decision.triggered_rules_count;
    const message = `${processed} rule${processed === 1 ? '' : 's'} processed, ${triggered} triggered`;
    const trace = result.trace ? `,"trace":${JSON.stringify(result.trace)}` : '';
    return `{"success":true,"data":{"message":${JSON.stringify(message)},"processedRules":${result.rulesJson},"triggeredRulesCount":${triggered}${trace}}}`;
  };
}

/** POST /transaction/:orgId in Express: the reference for every request its lane declines. */
export function mountTransaction(r: Router, d: RulesDeps): void {
  const answer = transactionAnswer(d);
  r.post(PATH, async (req, res) => {
    const given = req.query.ruleIds;
    const ruleIds = given === undefined ? undefined : (Array.isArray(given) ? given : [given]).map(String);
    sendJson(res, 200, await answer(param(req, 'orgId'), ruleIds, req.body));
  });
}

/** The same route as a lane (api/http/lane.ts): the hot path of the rule engine. */
export function transactionLane(d: RulesDeps): LaneRoute {
  const answer = transactionAnswer(d);
  return {
    method: 'POST',
    path: PATH,
    org: { param: 'orgId' },
    style: 'rule-engine',
    bodyLimit: d.platform.config.BODY_LIMIT,
    handle: async (req) => {
      const given = req.query.getAll('ruleIds');
      return { status: 200, json: await answer(req.params.orgId!, given.length > 0 ? given : undefined, req.body) };
    },
  };
}
