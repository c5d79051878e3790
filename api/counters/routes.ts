import type { Request, Router } from 'express';
import { z } from 'zod';
import type { Platform } from '../../infra/platform.js';
import {
  counterConfigBodySchema,
  counterConfigSchema,
  errorBodySchema,
  eventBatchDocSchema,
  eventBatchSchema,
  eventSchema,
  ingestionResultSchema,
  okEnvelope,
  realtimeSchema,
} from '../../schemas/http/counters.js';
import type { CompiledConfig } from '../../domain/counters/compile.js';
import { authenticate, requireOrg, type KeyRing } from '../http/auth.js';
import { HttpError, badRequest } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import { documentedRouter, type DocumentedRoute } from '../http/service-router.js';
import { VersionConflictError, type ConfigStore } from '../../pipelines/counters/config-store.js';
import { ColumnConflictError } from '../../pipelines/counters/counter-table.js';
import { QuotaExceededError } from '../../domain/quotas.js';
import type { LiveValues } from '../../pipelines/counters/live.js';
import type { Intake } from './intake.js';

export interface CountersApiDeps {
  platform: Platform;
  keys: KeyRing;
  configs: ConfigStore;
  intake: Intake;
  live: LiveValues;
}

type Route = DocumentedRoute;

const orgParams = z.object({ org_id: z.string() });
const entityParams = z.object({ org_id: z.string(), entity_id: z.string() });
const errors = {
  400: { description: 'Invalid request; message says what is wrong and where', schema: errorBodySchema },
  401: { description: 'Missing or unknown x-api-key, or missing x-org-id', schema: errorBodySchema },
  403: { description: 'The key may not act for this organization', schema: errorBodySchema },
};
const configEnvelope = okEnvelope(counterConfigSchema.nullable());
const ingestionEnvelope = okEnvelope(ingestionResultSchema);

/** Path parameters of the routes below are single segments. */
const param = (req: Request, name: string): string => String(req.params[name]);

const configData = (c: CompiledConfig | null) => (c ? c.config : null);

/** GET's whole answer sent back (`{status: 'ok', data}`) is its `data`: what GET answers, PUT takes. */
const fromGetAnswer = (body: unknown): unknown =>
  body !== null && typeof body === 'object' && 'data' in body && (body as { status?: unknown }).status === 'ok' && Object.keys(body).length === 2 ? (body as { data: unknown }).data : body;

function asHttp(err: unknown): unknown {
  if (err instanceof VersionConflictError) return new HttpError(409, 'version_conflict', err.message, { current_version: err.currentVersion });
  if (err instanceof ColumnConflictError) return new HttpError(409, 'column_conflict', err.message);
  if (err instanceof QuotaExceededError) return new HttpError(400, 'quota_exceeded', err.message);
  return err;
}

function routes(deps: CountersApiDeps): Route[] {
  return [
    {
      method: 'get',
      path: '/v1/counters/:org_id',
      summary: 'Read the counter configuration and its version (data is null before the first PUT)',
      params: orgParams,
      responses: { 200: { description: 'Current configuration', schema: configEnvelope }, ...errors },
      handle: async (req, res) => {
        res.json({ status: 'ok', data: configData(await deps.configs.current(param(req, 'org_id'))) });
      },
    },
    {
      method: 'put',
      path: '/v1/counters/:org_id',
      summary: 'Replace the counter configuration whole',
      description:
        "Send the version read (omit it only when no configuration exists). GET's `data`, or its whole answer `{status: 'ok', data}`, is taken back unchanged. Removing a counter retires it: counting stops and its column keeps the last values. active false stops counting and keeps the column.",
      params: orgParams,
      body: { schema: counterConfigBodySchema },
      responses: {
        200: { description: 'Saved configuration with its new version', schema: configEnvelope },
        ...errors,
        409: { description: 'version_conflict (body carries current_version) or column_conflict', schema: errorBodySchema },
      },
      handle: async (req, res) => {
        const body = parseOr400(counterConfigBodySchema, fromGetAnswer(req.body), 'counter configuration');
        try {
          res.json({ status: 'ok', data: configData(await deps.configs.save(param(req, 'org_id'), body)) });
        } catch (err) {
          throw asHttp(err);
        }
      },
    },
    {
      method: 'post',
      path: '/v1/events/:org_id',
      summary: 'Ingest one event',
      description: 'Answers 202 once the event is durably in the events log. A re-sent event_id counts once and is reported as a duplicate; an invalid event is a 400.',
      params: orgParams,
      body: { schema: eventSchema, example: { event_id: 'evt-0001', entity_id: 'user-42', event_type: 'payment', occurred_at: '2026-01-15T10:15:00.000Z', value: 25.5 } },
      responses: { 202: { description: 'Ingestion result', schema: ingestionEnvelope }, ...errors },
      handle: async (req, res) => {
        if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) throw badRequest('request body must be one event object; send several to /batch as {events: [...]}');
        const result = await deps.intake(param(req, 'org_id'), [req.body]);
        const rejection = result.rejected[0];
        if (rejection) throw new HttpError(400, 'validation_error', `event rejected: ${rejection.reason}`, { rejected: result.rejected });
        res.status(202).json({ status: 'ok', data: result });
      },
    },
    {
      method: 'post',
      path: '/v1/events/:org_id/batch',
      summary: 'Ingest up to 500 events',
      description: 'Invalid items are listed in rejected with their index and reason; the rest are accepted. Answers 202 once the accepted events are durably in the events log.',
      params: orgParams,
      body: { schema: eventBatchDocSchema, example: { events: [{ event_id: 'evt-0001', entity_id: 'user-42', event_type: 'payment', occurred_at: '2026-01-15T10:15:00.000Z', value: 25.5 }, { event_id: 'evt-0002', entity_id: 'user-42', event_type: 'payment', occurred_at: '2026-01-15T10:16:00.000Z', value: 40 }] } },
      responses: { 202: { description: 'Ingestion result', schema: ingestionEnvelope }, ...errors },
      handle: async (req, res) => {
        if (Array.isArray(req.body)) throw badRequest('request body must be an object {events: [...]}; a bare array is not accepted');
        const { events } = parseOr400(eventBatchSchema, req.body, 'event batch');
        res.status(202).json({ status: 'ok', data: await deps.intake(param(req, 'org_id'), events) });
      },
    },
    {
      method: 'get',
      path: '/v1/entities/:org_id/:entity_id/realtime',
      summary: "Live counter values of one entity as of now (not as of the last flush)",
      params: entityParams,
      responses: { 200: { description: 'Live values', schema: okEnvelope(realtimeSchema) }, ...errors },
      handle: async (req, res) => {
        const now = deps.platform.clock.now();
        const counters = await deps.live.values(param(req, 'org_id'), param(req, 'entity_id'), now);
        res.json({ status: 'ok', data: { entity_id: param(req, 'entity_id'), counters, as_of: new Date(now).toISOString() } });
      },
    },
  ];
}

/** Routes of the counter service, and its OpenAPI document served without credentials. */
export function countersRouter(deps: CountersApiDeps): Router {
  const list = routes(deps);
  return documentedRouter({
    style: 'standard',
    bodyLimit: deps.platform.config.BODY_LIMIT,
    prefixes: ['/v1/counters', '/v1/events', '/v1/entities', '/v1/counter-stream'],
    keys: deps.keys,
    document: {
      title: 'Weir event counters',
      version: '1.0.0',
      description: 'Counter configuration, event ingestion and live entity values.',
      securityHeaders: ['x-org-id', 'x-api-key'],
      tooLarge: errorBodySchema,
      edgeRateLimit: true,
    },
    documentPath: '/v1/counter-stream/openapi.json',
    routes: list,
    guard: [authenticate(deps.keys), requireOrg({ header: 'x-org-id', param: 'org_id' })],
  });
}
