import type { Router } from 'express';
import { authenticate, requireOrg, type KeyRing } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { serviceRouter } from '../http/service-router.js';
import type { RulesDeps } from './deps.js';
import { mountFields } from './fields.js';
import { mountRules } from './rules.js';
import { mountTables } from './tables.js';
import { mountTransaction } from './transaction.js';
import { OPENAPI_PATH, ruleEngineDocument } from './openapi.js';

/**
 * The rule engine's HTTP surface (Document 1 part A, contract 2.0.0, no path prefix). Every 4xx
 * answers Document 1's error body; the key's organization must be the path's orgId. Its OpenAPI
 * document is served without credentials at /rule-engine/openapi.json.
 */
export function rulesRouter(d: RulesDeps & { keys: KeyRing }): Router {
  const document = ruleEngineDocument();
  const prefixes = ['/fields', '/rules', '/tables', '/transaction', '/rule-engine'];
  return serviceRouter({ style: 'rule-engine', bodyLimit: d.platform.config.BODY_LIMIT, prefixes, keys: d.keys }, (r) => {
    r.get(OPENAPI_PATH, (_req, res) => void res.json(document));
    r.use(authenticate(d.keys));
    r.use('/:kind/:orgId', requireOrg({ param: 'orgId' }));
    // The hot path first: Express tries routes in order.
    mountTransaction(r, d);
    mountFields(r, d);
    mountRules(r, d);
    mountTables(r, d);
    r.use((req, _res, next) => next(notFound(`no route for ${req.method} ${req.path}`)));
  });
}
