import type { Router } from 'express';
import { badRequest, HttpError } from '../http/errors.js';
import { REPLAYED_HEADER } from '../http/replay.js';
import type { LaneRoute } from '../http/lane.js';
import { parseOr400 } from '../http/validate.js';
import { UnknownRulesError } from '../../pipelines/rules/engine.js';
import { rulesMetrics } from '../../pipelines/rules/metrics.js';
import { publishTransaction, serialise } from '../../pipelines/rules/transactions-topic.js';
import { createTransactionReplays, REPLAY_WINDOW_MS, sameTransaction, type StoredDecision } from '../../pipelines/rules/transaction-replays.js';
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

/** The answer's JSON text; `extra` is spliced into `data` as it is (`,"trace":…`). */
function answerJson(processed: number, triggered: number, rulesJson: string, extra: string): string {
  const message = `${processed} rule${processed === 1 ? '' : 's'} processed, ${triggered} triggered`;
  return `{"success":true,"data":{"message":${JSON.stringify(message)},"processedRules":${rulesJson},"triggeredRulesCount":${triggered}${extra}}}`;
}

interface Answer {
  json: string;
  replayed: boolean;
}

/** The stored decision of an earlier request with this transaction_id, or a 409 when this one asks something else. */
function replayOf(orgId: string, tx: Record<string, unknown>, stored: StoredDecision): Answer {
  if (!sameTransaction(tx, stored.transaction)) {
    throw new HttpError(
      409,
      'transaction_id_reused',
      `transaction_id ${JSON.stringify(String(tx.transaction_id))} was evaluated in the last ${REPLAY_WINDOW_MS / 3_600_000} hours with another body; a retry must send the same body, a new transaction a new transaction_id`,
    );
  }
  return { json: answerJson(stored.processed.length, stored.triggeredRulesCount, JSON.stringify(stored.processed), ',"replay":true'), replayed: true };
}

/**
 * Evaluates a transaction synchronously, publishes it with its decision to `transactions`, and
 * answers (the envelope's JSON) once the log holds it; the decisions consumer writes it to ClickHouse.
 * A transaction_id seen in the replay window answers the decision stored for it (`replay: true`)
 * instead, or a 409 when the body differs.
 */
function transactionAnswer(d: RulesDeps) {
  const metrics = rulesMetrics(d.platform.metrics);
  const replays = createTransactionReplays(d.platform);
  return async (orgId: string, ruleIdsGiven: string[] | undefined, body: unknown): Promise<Answer> => {
    const ruleIds = ruleIdsOf(ruleIdsGiven);
    const ctx = await d.engine.context(orgId);
    const tx = parseOr400(ctx.transaction, body, 'transaction');
    const id = String(tx.transaction_id);
    if (!(await replays.first(orgId, id))) {
      const stored = await replays.stored(orgId, id);
      if (stored) return replayOf(orgId, tx, stored);
    }
    try {
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
      const trace = result.trace ? `,"trace":${JSON.stringify(result.trace)}` : '';
      return { json: answerJson(result.decision.processed_rules.length, result.decision.triggered_rules_count, result.rulesJson, trace), replayed: false };
    } catch (err) {
      // Nothing reached the log: a retry is a first request.
      await replays.forget(orgId, id).catch(() => undefined);
      throw err;
    }
  };
}

/** POST /transaction/:orgId in Express: the reference for every request its lane declines. */
export function mountTransaction(r: Router, d: RulesDeps): void {
  const answer = transactionAnswer(d);
  r.post(PATH, async (req, res) => {
    const given = req.query.ruleIds;
    const ruleIds = given === undefined ? undefined : (Array.isArray(given) ? given : [given]).map(String);
    const { json, replayed } = await answer(param(req, 'orgId'), ruleIds, req.body);
    if (replayed) res.setHeader(REPLAYED_HEADER, 'true');
    sendJson(res, 200, json);
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
      const { json, replayed } = await answer(req.params.orgId!, given.length > 0 ? given : undefined, req.body);
      return { status: 200, json, ...(replayed ? { headers: { [REPLAYED_HEADER]: 'true' } } : {}) };
    },
  };
}
