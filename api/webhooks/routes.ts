import { randomUUID } from 'node:crypto';
import type { Request, Router } from 'express';
import { z } from 'zod';
import type { Platform } from '../../infra/platform.js';
import { emittedEventSchema, eventTypes } from '../../domain/webhooks/catalogue.js';
import { isStandardSecret } from '../../domain/webhooks/signing.js';
import {
  circuitSchema,
  deliveriesQuery,
  deliveriesSchema,
  errorBodySchema,
  eventAccepted,
  eventBody,
  eventTypesSchema,
  orgConfigBody,
  orgConfigSchema,
  registrationBody,
  registrationPatch,
  registrationSchema,
  registrationsPage,
  registrationsQuery,
  rotateSecretBody,
} from '../../schemas/http/webhooks.js';
import { overLimit } from '../../domain/webhooks/bounds.js';
import { FAILURES_TO_OPEN } from '../../domain/webhooks/circuit.js';
import { circuitKey, type CircuitBoard } from '../../pipelines/webhooks/circuit-board.js';
import { presentRegistration, RegistrationConflict, type Registration, type Registry } from '../../pipelines/webhooks/registry.js';
import type { DeliveryLog } from '../../pipelines/webhooks/delivery-log.js';
import type { FanOut } from '../../pipelines/webhooks/fan-out.js';
import { CATCH_ALL, publishJobs } from '../../pipelines/webhooks/topics.js';
import { authenticate, requireOrg, type KeyRing } from '../http/auth.js';
import { HttpError, badRequest, notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import { documentedRouter, type DocumentedRoute } from '../http/service-router.js';
import type { LaneRoute } from '../http/lane.js';

export interface WebhooksApiDeps {
  platform: Platform;
  keys: KeyRing;
  registry: Registry;
  deliveries: DeliveryLog;
  fanOut: FanOut;
  board: CircuitBoard;
  /** Extra routes (approvals) with their documentation. */
  extra?: Route[];
}

export type Route = DocumentedRoute;

export const OPENAPI_PATH = '/webhooks/openapi.json';
/** The catch-all address's deliveries are read and redelivered under this id. */
const CATCH_ALL_ID = 'catch-all';

const idParams = z.object({ id: z.string() });
const deliveryParams = z.object({ id: z.string(), deliveryId: z.string() });
export const errors = {
  400: { description: 'Invalid request; message says what is wrong and where', schema: errorBodySchema },
  401: { description: 'Missing or unknown x-api-key, or missing X-Org-Id', schema: errorBodySchema },
  403: { description: 'The key may not act for this organization', schema: errorBodySchema },
};
const notFoundDoc = { 404: { description: 'No such registration in this organization', schema: errorBodySchema } };
const iso = (ms: number) => new Date(ms).toISOString();

export const param = (req: Request, name: string): string => String(req.params[name]);
export const orgOf = (req: Request): string => req.principal!.orgId;

/** POST /events for Express and its lane alike: validates, bounds and fans the event out; answers the body of the 202. */
function eventIntake(deps: Pick<WebhooksApiDeps, 'platform' | 'fanOut'>) {
  const payloadLimit = deps.platform.config.WEBHOOK_EVENT_PAYLOAD_LIMIT_BYTES;
  return async (orgId: string, body: unknown, idempotencyKey: string | undefined) => {
    const e = parseOr400(emittedEventSchema, parseOr400(eventBody, body, 'event'), 'event');
    const tooLarge = overLimit(e.payload, 'payload', payloadLimit, 'WEBHOOK_EVENT_PAYLOAD_LIMIT_BYTES');
    if (tooLarge) throw badRequest(`invalid event: payload: ${tooLarge}`);
    const seed = idempotencyKey ? `http:${orgId}:${idempotencyKey}` : `http:${randomUUID()}`;
    const [ids] = await deps.fanOut([{ ...e, orgId, seed }]);
    return { delivery_ids: ids ?? [] };
  };
}

/**
 * POST /events as a lane (api/http/lane.ts), answered ahead of Express in its plain case: Express's
 * dispatch and body parser were the largest part of the intake's main-thread CPU, and the intake
 * the half that held the delivery rate (bench/results/webhooks-halves.md).
 */
export function eventsLane(deps: Pick<WebhooksApiDeps, 'platform' | 'fanOut'>): LaneRoute {
  const acceptEvent = eventIntake(deps);
  return {
    method: 'POST',
    path: '/events',
    org: { header: 'x-org-id' },
    style: 'standard',
    bodyLimit: deps.platform.config.BODY_LIMIT,
    handle: async (req) => {
      const key = req.headers['idempotency-key'];
      return { status: 202, json: JSON.stringify(await acceptEvent(req.principal.orgId, req.body, typeof key === 'string' ? key : undefined)) };
    },
  };
}

function routes(deps: WebhooksApiDeps): Route[] {
  const { registry, platform } = deps;
  const now = () => platform.clock.now();
  const found = async (req: Request) => {
    const r = await registry.get(orgOf(req), param(req, 'id'));
    if (!r) throw notFound(`no webhook registration ${param(req, 'id')} in this organization`);
    return r;
  };
  /** The target id of the log: a registration of the organization, or its catch-all address. */
  const targetOf = async (req: Request) => (param(req, 'id') === CATCH_ALL_ID ? CATCH_ALL : (await found(req)).id);
  const { WEBHOOK_AUTO_PAYLOAD_LIMIT_BYTES: autoPayloadLimit } = platform.config;
  const acceptEvent = eventIntake(deps);
  const boundAutoPayload = (what: string, autoPayload: Record<string, unknown> | null | undefined) => {
    const wrong = autoPayload ? overLimit(autoPayload, 'auto_payload', autoPayloadLimit, 'WEBHOOK_AUTO_PAYLOAD_LIMIT_BYTES') : null;
    if (wrong) throw badRequest(`invalid ${what}: auto_payload: ${wrong}`);
  };
  const circuitOf = async (r: Registration) => {
    const recorded = await deps.board.read(circuitKey(r.org_id, r.url));
    const s = recorded?.state;
    const t = now();
    const state = !s ? 'closed' : t < s.openUntil ? 'open' : s.consecutiveFailures >= FAILURES_TO_OPEN ? 'half_open' : 'closed';
    return { url: r.url, state, consecutive_failures: s?.consecutiveFailures ?? 0, open_until: s && s.openUntil > 0 ? iso(s.openUntil) : null, recorded_at: recorded ? iso(recorded.at) : null };
  };

  return [
    {
      method: 'get',
      path: '/webhooks/event-types',
      summary: 'The event catalogue: every event, its kind (R registrable, C catch-all only), alias and payload JSON schema',
      authenticated: false,
      responses: { 200: { description: 'Event types', schema: eventTypesSchema } },
      handle: (_req, res) => void res.json({ data: eventTypes() }),
    },
    {
      method: 'get',
      path: '/webhooks',
      summary: "The organization's registrations in id order, paged; those the risk webhook configuration keeps carry managed_by",
      query: registrationsQuery,
      responses: { 200: { description: 'A page of registrations', schema: registrationsPage }, ...errors },
      handle: async (req, res) => {
        const q = parseOr400(registrationsQuery, req.query, 'query');
        const { page, next } = await registry.list(orgOf(req), { limit: q.limit, ...(q.cursor ? { after: q.cursor } : {}) });
        res.json({ data: page.map((r) => presentRegistration(r, now())), next_cursor: next });
      },
    },
    {
      method: 'post',
      path: '/webhooks',
      summary: 'Register a target for one registrable event',
      description: 'The secret is kept sealed and never returned (has_secret says whether there is one). filter is honored only for document events.',
      body: { schema: registrationBody },
      responses: { 201: { description: 'The registration', schema: registrationSchema }, ...errors },
      handle: async (req, res) => {
        const body = parseOr400(registrationBody, req.body, 'registration');
        boundAutoPayload('registration', body.auto_payload);
        res.status(201).json(presentRegistration(await registry.create(orgOf(req), body), now()));
      },
    },
    {
      method: 'get',
      path: '/webhooks/:id',
      summary: 'Read a registration',
      params: idParams,
      responses: { 200: { description: 'The registration', schema: registrationSchema }, ...errors, ...notFoundDoc },
      handle: async (req, res) => void res.json(presentRegistration(await found(req), now())),
    },
    {
      method: 'patch',
      path: '/webhooks/:id',
      summary: 'Change a registration',
      description: 'enabled true re-enables a target the service disabled after persistent failures.',
      params: idParams,
      body: { schema: registrationPatch },
      responses: { 200: { description: 'The registration', schema: registrationSchema }, ...errors, ...notFoundDoc, 409: { description: 'The change leaves standard_webhooks without a secret', schema: errorBodySchema } },
      handle: async (req, res) => {
        const change = parseOr400(registrationPatch, req.body, 'registration change');
        boundAutoPayload('registration change', change.auto_payload);
        await found(req);
        try {
          const r = await registry.update(orgOf(req), param(req, 'id'), change);
          if (!r) throw notFound(`no webhook registration ${param(req, 'id')} in this organization`);
          res.json(presentRegistration(r, now()));
        } catch (err) {
          if (err instanceof RegistrationConflict) throw new HttpError(409, 'conflict', err.message);
          throw err;
        }
      },
    },
    {
      method: 'delete',
      path: '/webhooks/:id',
      summary: 'Remove a registration; its pending deliveries are dropped (logged as skipped)',
      params: idParams,
      responses: { 204: { description: 'Removed' }, ...errors, ...notFoundDoc },
      handle: async (req, res) => {
        if (!(await registry.remove(orgOf(req), param(req, 'id')))) throw notFound(`no webhook registration ${param(req, 'id')} in this organization`);
        res.status(204).end();
      },
    },
    {
      method: 'post',
      path: '/webhooks/:id/rotate-secret',
      summary: 'Rotate the signing secret with a grace period in which both secrets sign',
      params: idParams,
      body: { schema: rotateSecretBody, example: { secret: 'whsec-rotated-2026', grace_period_seconds: 3600 } },
      responses: { 200: { description: 'The registration', schema: registrationSchema }, ...errors, ...notFoundDoc },
      handle: async (req, res) => {
        const body = parseOr400(rotateSecretBody, req.body, 'secret rotation');
        const r = await found(req);
        if (r.standard_webhooks && !isStandardSecret(body.secret)) throw badRequest('invalid secret rotation: secret: with standard_webhooks, must be whsec_ followed by base64 of at least 24 bytes');
        const next = await registry.rotateSecret(orgOf(req), r.id, body.secret, body.grace_period_seconds * 1000);
        res.json(presentRegistration(next!, now()));
      },
    },
    {
      method: 'get',
      path: '/webhooks/:id/circuit',
      summary: "The circuit of the registration's organization and URL",
      params: idParams,
      responses: { 200: { description: 'The circuit', schema: circuitSchema }, ...errors, ...notFoundDoc },
      handle: async (req, res) => void res.json(await circuitOf(await found(req))),
    },
    {
      method: 'delete',
      path: '/webhooks/:id/circuit',
      summary: 'Close the circuit: deliveries deferred behind it go out when they next come due, new ones at once',
      description: 'Every delivery worker honours the reset the next time the circuit would defer a delivery. Answers the circuit, closed.',
      params: idParams,
      responses: { 200: { description: 'The circuit, closed', schema: circuitSchema }, ...errors, ...notFoundDoc },
      handle: async (req, res) => {
        const r = await found(req);
        await deps.board.reset(circuitKey(r.org_id, r.url), now());
        res.json(await circuitOf(r));
      },
    },
    {
      method: 'get',
      path: '/webhooks/:id/deliveries',
      summary: 'Delivery attempts to a target, newest first (id catch-all: the catch-all address)',
      params: idParams,
      query: deliveriesQuery,
      responses: { 200: { description: 'Attempts', schema: deliveriesSchema }, ...errors, ...notFoundDoc },
      handle: async (req, res) => {
        const q = parseOr400(deliveriesQuery, req.query, 'query');
        const data = await deps.deliveries.list(orgOf(req), await targetOf(req), { limit: q.limit, ...(q.delivery_id ? { deliveryId: q.delivery_id } : {}), ...(q.status ? { status: q.status } : {}) });
        res.json({ data });
      },
    },
    {
      method: 'post',
      path: '/webhooks/:id/deliveries/:deliveryId/redeliver',
      summary: 'Send a logged delivery again, with the same delivery_id and envelope, even to a disabled target',
      description:
        'The redelivery goes out at once even while the circuit is open (once: its retries wait for the circuit like any other). Its attempt numbers continue after the last logged attempt of the delivery, and it gets a fresh budget of 5 retries.',
      params: deliveryParams,
      responses: { 202: { description: 'Queued', schema: z.object({ delivery_id: z.string() }) }, ...errors, 404: { description: 'No such registration or delivery', schema: errorBodySchema } },
      handle: async (req, res) => {
        const target = await targetOf(req);
        const deliveryId = param(req, 'deliveryId');
        const message = await deps.deliveries.message(orgOf(req), target, deliveryId);
        if (!message) throw notFound(`no delivery ${deliveryId} to this target in the delivery log`);
        const [last] = await deps.deliveries.list(orgOf(req), target, { limit: 1, deliveryId });
        const attempt = (last?.attempt ?? 0) + 1;
        await publishJobs(platform, [{ ...message, delivery_id: deliveryId, org_id: orgOf(req), target, attempt, retry_from: attempt, manual: true, bypass_circuit: true }]);
        res.status(202).json({ delivery_id: deliveryId });
      },
    },
    {
      method: 'post',
      path: '/events',
      summary: 'Emit a workflow event; it is delivered to the matching registrations and the catch-all address',
      description:
        'Answers 202 once the deliveries are durably queued. An Idempotency-Key header makes a repeated request produce the same delivery ids, which receivers deduplicate on. A payload over WEBHOOK_EVENT_PAYLOAD_LIMIT_BYTES as JSON (default 256 KB) is a 400 naming the limit.',
      body: { schema: eventBody, example: { event: 'workflow.completed', payload: { run_id: 'run-1', workflow_id: 'wf-1', result: { approved: true } } } },
      responses: { 202: { description: 'The delivery ids, one per target', schema: eventAccepted }, ...errors },
      handle: async (req, res) => void res.status(202).json(await acceptEvent(orgOf(req), req.body, req.get('idempotency-key'))),
    },
    {
      method: 'post',
      path: '/org-config',
      summary: 'Set an organization setting; key webhook_url sets the catch-all address (null removes it)',
      description: 'The catch-all address receives every event the runtime emits, unsigned.',
      body: { schema: orgConfigBody, example: { key: 'webhook_url', value: 'https://example.com/hooks/all' } },
      responses: { 200: { description: 'The setting', schema: orgConfigSchema }, ...errors },
      handle: async (req, res) => {
        const body = parseOr400(orgConfigBody, req.body, 'organization setting');
        await registry.setCatchAll(orgOf(req), body.value);
        res.json(body);
      },
    },
    ...(deps.extra ?? []),
  ];
}

/** Routes of the workflow webhooks service and its OpenAPI document, served without credentials. */
export function webhooksRouter(deps: WebhooksApiDeps): Router {
  return documentedRouter({
    style: 'standard',
    bodyLimit: deps.platform.config.BODY_LIMIT,
    prefixes: ['/webhooks', '/events', '/org-config', '/approvals', '/sdk'],
    document: {
      title: 'Weir workflow webhooks',
      version: '1.0.0',
      description: 'Webhook registrations, event intake, the catch-all address, the delivery log and approvals.',
      securityHeaders: ['x-org-id', 'x-api-key'],
      tooLarge: errorBodySchema,
      edgeRateLimit: true,
    },
    documentPath: OPENAPI_PATH,
    routes: routes(deps),
    guard: [authenticate(deps.keys), requireOrg({ header: 'x-org-id' })],
  });
}
