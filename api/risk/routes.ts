import { randomUUID } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { Platform } from '../../infra/platform.js';
import {
  challengeIssueSchema,
  challengeIssuedSchema,
  challengeVerifiedSchema,
  challengeVerifySchema,
  checkRequestSchema,
  checkResponseSchema,
  evalResponseSchema,
  feedbackRequestSchema,
  feedbackResponseSchema,
  riskErrorBodySchema,
  putScoringConfigAnswerSchema,
  scoringConfigPutSchema,
  storedScoringConfigSchema,
  webhookConfigRequestSchema,
  webhookConfigSchema,
  whitelistEntrySchema,
  whitelistRequestSchema,
} from '../../schemas/http/risk.js';
import { authenticate, requireOrg, type KeyRing } from '../http/auth.js';
import { codeStartsLimited, HttpError, notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import { omittedFields } from '../http/omitted-fields.js';
import { setNextCursor } from '../http/paging.js';
import { listQuery, listQueryShape, nextCursorField, pagedHeaders } from '../../schemas/http/paging.js';
import { VersionConflictError } from '../../pipelines/counters/config-store.js';
import { documentedRouter } from '../http/service-router.js';
import type { LaneRoute } from '../http/lane.js';
import type { RouteDoc } from '../http/openapi.js';
import type { createChecker } from '../../pipelines/risk/checker.js';
import type { WeightsStore } from '../../pipelines/risk/weights-store.js';
import type { WhitelistEntry, WhitelistStore } from '../../pipelines/risk/whitelist-store.js';
import { publicView, type WebhookConfigStore } from '../../pipelines/risk/webhook-config-store.js';
import { findRequest } from '../../pipelines/risk/requests.js';
import { RISK_CHECKS_TOPIC, type RiskRecord } from '../../pipelines/risk/record.js';
import type { Challenges } from '../../pipelines/risk/challenges.js';
import type { EntityData } from '../../pipelines/risk/entity-data.js';

export interface RiskApiDeps {
  platform: Platform;
  keys: KeyRing;
  check: ReturnType<typeof createChecker>;
  weights: WeightsStore;
  whitelist: WhitelistStore;
  webhooks: WebhookConfigStore;
  challenges: Challenges;
  entities: EntityData;
}

type Route = RouteDoc & { handle: (req: Request, res: Response, org: string) => Promise<void> };

const errors = {
  400: { description: 'Invalid parameters; message says what is wrong and where, details.issues lists each', schema: riskErrorBodySchema },
  401: { description: 'Missing or unknown x-api-key, or missing x-org-id', schema: riskErrorBodySchema },
  403: { description: 'The key may not act for the organization in x-org-id', schema: riskErrorBodySchema },
};
const missing = { 404: { description: 'No such resource in this organization', schema: riskErrorBodySchema } };
const entityParams = z.object({ entity_id: z.string() });
const entryView = (e: WhitelistEntry) => ({ id: e.id, entity_type: e.entity_type, identifier: e.identifier, created_at: e.created_at, expires_at: e.expires_at });
const unknownRequest = (id: string) => new HttpError(404, 'not_found', `no risk check with request_id ${id} in this organization`, {}, { request_id: id });
const param = (req: Request, name: string): string => String(req.params[name]);

const checkAnswer = async (deps: Pick<RiskApiDeps, 'check'>, org: string, body: unknown) =>
  (await deps.check(org, parseOr400(checkRequestSchema, body, 'risk check request'))).response;

/**
 * POST /v1/check (and under /risk) as lanes (api/http/lane.ts): the hot path of the risk service,
 * answered ahead of Express in its plain case, with the same handler as the Express route.
 */
export function riskCheckLanes(deps: Pick<RiskApiDeps, 'platform' | 'check'>): LaneRoute[] {
  return ['/v1/check', '/risk/v1/check'].map((path) => ({
    method: 'POST',
    path,
    org: { header: 'x-org-id' },
    style: 'risk',
    bodyLimit: deps.platform.config.BODY_LIMIT,
    handle: async (req) => ({ status: 200, json: JSON.stringify(await checkAnswer(deps, req.principal.orgId, req.body)) }),
  }));
}

function routes(deps: RiskApiDeps): Route[] {
  const { platform } = deps;
  const publish = async (records: RiskRecord[]) =>
    platform.bus.send(RISK_CHECKS_TOPIC, await Promise.all(records.map(async (r) => ({ key: r.org_id, value: await platform.codec.encode(RISK_CHECKS_TOPIC, r) }))));
  const checkDoc = {
    method: 'post' as const,
    params: undefined,
    body: {
      schema: checkRequestSchema,
      example: { email: 'jane@example.com', ip: '203.0.113.7', phone: '+14155550123', context: { action: 'login', user_id: 'user-42', session_id: 'sess-9' } },
    },
  };
  const weightsRoute = (method: 'put' | 'post'): Route => ({
    method,
    path: '/v1/weights',
    summary: 'Replace the scoring configuration with a new version',
    description:
      'The body replaces the whole configuration: absent fields take their defaults, and the answer names them in `defaults_applied`. What GET answers may be sent back unchanged: `version` is optimistic concurrency (a stale one is a 409 carrying `current_version`; without it the PUT overwrites), `updated_at` is ignored. Every PUT is a new version (the history is kept).',
    body: { schema: scoringConfigPutSchema },
    responses: {
      200: { description: 'The stored configuration, its version, and the fields set to defaults', schema: putScoringConfigAnswerSchema },
      ...errors,
      409: { description: 'version_conflict: `version` is not the current one (current_version in the body)', schema: riskErrorBodySchema.safeExtend({ current_version: z.number().int() }) },
    },
    handle: async (req, res, org) => {
      const { version, updated_at: _readOnly, defaults_applied: _alsoReadOnly, ...config } = parseOr400(scoringConfigPutSchema, req.body, 'scoring configuration');
      let v;
      try {
        v = await deps.weights.put(org, config, version);
      } catch (err) {
        if (err instanceof VersionConflictError) throw new HttpError(409, 'version_conflict', err.message, { current_version: err.currentVersion });
        throw err;
      }
      res.json({ ...v.config, version: v.version, updated_at: v.updated_at, defaults_applied: omittedFields(config, req.body) });
    },
  });
  const webhookRoute = (method: 'put' | 'post'): Route => ({
    method,
    path: '/v1/webhooks/config',
    summary: 'Configure the risk webhook (risk.high, risk.low)',
    description: 'The secret signs deliveries and is never returned; a PUT without secret keeps the stored one.',
    body: { schema: webhookConfigRequestSchema },
    responses: { 200: { description: 'The configuration without its secret', schema: webhookConfigSchema }, ...errors },
    handle: async (req, res, org) => {
      res.json(publicView(await deps.webhooks.put(org, parseOr400(webhookConfigRequestSchema, req.body, 'webhook configuration'))));
    },
  });
  const gdprDelete = (method: 'delete' | 'post'): Route => ({
    method,
    path: '/gdpr/delete/:entity_id',
    summary: "Delete every stored datum of a user, for good; the baseline starts again",
    params: entityParams,
    responses: { 200: { description: 'Deletion result', schema: z.object({ entity_id: z.string(), deleted_at: z.string(), deleted: z.record(z.string(), z.number()) }) }, ...errors },
    handle: async (req, res, org) => {
      res.json(await deps.entities.delete(org, param(req, 'entity_id')));
    },
  });
  return [
    {
      ...checkDoc,
      path: '/v1/check',
      summary: 'Risk check: outcome, score 0-100 and reasons',
      description: 'Answers once the check is durably in the risk.checks log. Score to outcome: allow below thresholds.review (40), block from thresholds.block (80), review between.',
      responses: { 200: { description: 'Decision', schema: checkResponseSchema }, ...errors },
      handle: async (req, res, org) => {
        res.json(await checkAnswer(deps, org, req.body));
      },
    },
    {
      ...checkDoc,
      path: '/v1/eval/check',
      summary: 'Glass-box risk check for development, staging and trials: the internal signals beside the decision',
      responses: { 200: { description: 'Evaluation', schema: evalResponseSchema }, ...errors },
      handle: async (req, res, org) => {
        res.json((await deps.check(org, parseOr400(checkRequestSchema, req.body, 'risk check request'))).evaluation);
      },
    },
    {
      method: 'post',
      path: '/v1/whitelist',
      summary: 'Whitelist a user, email, IP, phone or device (device_fingerprint is the device_id a check answers) until expires_at',
      body: {
        schema: whitelistRequestSchema,
        example: { entity_type: 'email', identifier: 'jane@example.com', reason: 'verified by phone call', duration_hours: 72, verified_by: 'analyst-7', verification_method: 'phone_callback' },
      },
      responses: { 201: { description: 'Entry', schema: whitelistEntrySchema }, ...errors },
      handle: async (req, res, org) => {
        const e = await deps.whitelist.add(org, parseOr400(whitelistRequestSchema, req.body, 'whitelist entry'));
        res.status(201).json(entryView(e));
      },
    },
    {
      method: 'get',
      path: '/v1/whitelist',
      summary: 'List whitelist entries not removed (expired ones too, with their expires_at), by id, paged',
      query: listQueryShape(),
      responses: {
        200: { description: 'A page of entries; next_cursor (and X-Next-Cursor) for the next', schema: z.object({ entries: z.array(whitelistEntrySchema), next_cursor: nextCursorField }), headers: pagedHeaders },
        ...errors,
      },
      handle: async (req, res, org) => {
        const page = await deps.whitelist.page(org, parseOr400(listQuery(), req.query, 'query'));
        setNextCursor(res, page);
        res.json({ entries: page.items.map(entryView), next_cursor: page.nextCursor });
      },
    },
    {
      method: 'delete',
      path: '/v1/whitelist/:id',
      summary: 'Remove a whitelist entry',
      params: z.object({ id: z.string() }),
      responses: { 204: { description: 'Removed' }, ...errors, ...missing },
      handle: async (req, res, org) => {
        if (!(await deps.whitelist.remove(org, param(req, 'id')))) throw notFound(`no whitelist entry ${param(req, 'id')}`);
        res.status(204).end();
      },
    },
    {
      method: 'post',
      path: '/v1/feedback',
      summary: 'Report whether a decision was right (false_positive, false_negative, correct)',
      body: {
        schema: feedbackRequestSchema,
        example: { request_id: 'b8f3c2de-4a51-4c6e-9d0e-1f2a3b4c5d6e', feedback_type: 'false_positive', actual_outcome: 'allow', reported_by: 'analyst-7', notes: 'known customer' },
      },
      responses: { 201: { description: 'Received', schema: feedbackResponseSchema }, ...errors, ...missing },
      handle: async (req, res, org) => {
        const body = parseOr400(feedbackRequestSchema, req.body, 'feedback');
        const known = await findRequest(platform, org, body.request_id);
        if (!known) throw unknownRequest(body.request_id);
        const feedback_id = randomUUID();
        const received_at = new Date(platform.clock.now()).toISOString();
        await publish([{ kind: 'feedback', org_id: org, request_id: body.request_id, user_id: known.user_id, feedback_id, feedback_type: body.feedback_type, actual_outcome: body.actual_outcome, original_outcome: known.outcome, reported_by: body.reported_by, notes: body.notes ?? null, received_at }]);
        res.status(201).json({ feedback_id, received_at });
      },
    },
    {
      method: 'post',
      path: '/v1/challenge/issue',
      summary: 'Send a one-time code for a step-up challenge of a check',
      description: "The code goes to the notifier (topic notifications.otp); it is stored only as a hash, expires after 10 minutes and allows 5 answers. A new challenge for the same check replaces the previous one. More than 5 challenges per user or 20 per destination (email or phone) in 10 minutes answer 429 with `limit` per_user or per_address. dev_code is present only with OTP_DEV_ECHO=true.",
      body: { schema: challengeIssueSchema, example: { challenge_type: 'email_otp', email: 'jane@example.com', request_id: 'b8f3c2de-4a51-4c6e-9d0e-1f2a3b4c5d6e' } },
      responses: { 201: { description: 'Challenge', schema: challengeIssuedSchema }, ...errors, ...missing, 429: { description: 'Too many challenges for this user or this destination', schema: riskErrorBodySchema } },
      handle: async (req, res, org) => {
        const body = parseOr400(challengeIssueSchema, req.body, 'challenge');
        const issued = await deps.challenges.issue(org, body);
        if (!issued) throw unknownRequest(body.request_id);
        if ('refused' in issued) throw codeStartsLimited(issued.refused);
        res.status(201).json(issued);
      },
    },
    {
      method: 'post',
      path: '/v1/challenge/verify',
      summary: 'Verify a one-time code; a verified challenge turns its check into allow',
      body: { schema: challengeVerifySchema, example: { challenge_id: 'chl_5d1e2f3a4b', code: '482913' } },
      responses: { 200: { description: 'Verified', schema: challengeVerifiedSchema }, 400: { description: "{verified: false, error: 'invalid_code', reason, message, attempts_left} for a refused code, `reason` one of unknown, expired, used, replaced, exhausted, mismatch; else a validation error", schema: challengeVerifiedSchema.or(riskErrorBodySchema) }, 401: errors[401], 403: errors[403] },
      handle: async (req, res, org) => {
        const result = await deps.challenges.verify(org, parseOr400(challengeVerifySchema, req.body, 'challenge verification'));
        res.status(result.verified ? 200 : 400).json(result);
      },
    },
    {
      method: 'get',
      path: '/v1/weights',
      summary: 'Read the scoring configuration (defaults, version 0, before the first PUT)',
      responses: { 200: { description: 'Configuration', schema: storedScoringConfigSchema }, ...errors },
      handle: async (_req, res, org) => {
        const v = await deps.weights.current(org);
        res.json({ ...v.config, version: v.version, updated_at: v.updated_at });
      },
    },
    weightsRoute('put'),
    weightsRoute('post'),
    {
      method: 'get',
      path: '/sessions/:entity_id',
      summary: "A user's sessions active within the last 24 hours, newest first",
      params: entityParams,
      responses: { 200: { description: 'Sessions', schema: z.object({ entity_id: z.string(), sessions: z.array(z.record(z.string(), z.unknown())) }) }, ...errors },
      handle: async (req, res, org) => {
        res.json({ entity_id: param(req, 'entity_id'), sessions: await deps.entities.sessions(org, param(req, 'entity_id')) });
      },
    },
    {
      method: 'get',
      path: '/gdpr/export/:entity_id',
      summary: 'Everything stored about a user: checks, feedback, overrides, whitelist entries, challenges, baseline and devices',
      params: entityParams,
      responses: { 200: { description: 'Export', schema: z.record(z.string(), z.unknown()) }, ...errors },
      handle: async (req, res, org) => {
        res.json(await deps.entities.export(org, param(req, 'entity_id')));
      },
    },
    gdprDelete('delete'),
    gdprDelete('post'),
    {
      method: 'get',
      path: '/v1/webhooks/config',
      summary: 'Read the risk webhook configuration (null before the first PUT); the secret is never returned',
      responses: { 200: { description: 'Configuration', schema: webhookConfigSchema }, ...errors },
      handle: async (_req, res, org) => {
        res.json(publicView(await deps.webhooks.current(org)));
      },
    },
    webhookRoute('put'),
    webhookRoute('post'),
  ];
}

/** Every route answers bare (as on {risk_url}) and under /risk (as on {base_url}), CONTRACTS.md section 5. */
export const RISK_PREFIXES = ['/v1/check', '/v1/eval', '/v1/whitelist', '/v1/feedback', '/v1/challenge', '/v1/weights', '/sessions', '/gdpr', '/v1/webhooks/config', '/risk'];

export function riskRouter(deps: RiskApiDeps): Router {
  return documentedRouter({
    style: 'risk',
    bodyLimit: deps.platform.config.BODY_LIMIT,
    prefixes: RISK_PREFIXES,
    keys: deps.keys,
    document: {
      title: 'Weir risk check',
      version: '1.0.0',
      description: 'Risk check, whitelist, feedback, challenges, scoring configuration, sessions, GDPR and risk webhooks. Every path also answers under /risk.',
      securityHeaders: ['x-org-id', 'x-api-key'],
      tooLarge: riskErrorBodySchema,
      edgeRateLimit: true,
    },
    documentPath: '/risk/openapi.json',
    routes: routes(deps).map((route) => ({ ...route, handle: (req, res) => route.handle(req, res, req.principal!.orgId) })),
    alsoUnder: '/risk',
    alsoDocumented: [
      { method: 'get', path: '/risk/health', summary: 'Availability check', authenticated: false, responses: { 200: { description: 'Health', schema: z.object({ status: z.string(), timestamp: z.string() }) } } },
    ],
    guard: [authenticate(deps.keys), requireOrg({ header: 'x-org-id' })],
    define: (r) => r.get('/risk/health', (_req, res) => void res.json({ status: 'ok', timestamp: new Date().toISOString() })),
  });
}
