import type { Request, Router } from 'express';
import { z } from 'zod';
import type { QueryName } from '../../domain/analytics/queries.js';
import type { AnalyticsReader } from '../../pipelines/analytics/reader.js';
import { clickhouseDateTime } from '../../domain/rules/values.js';
import { errorBodySchema } from '../../schemas/http/counters.js';
import {
  counterConfigRow,
  decisionRuleRow,
  entityCountersSchema,
  hourlyRow,
  pageOf,
  pageQuery,
  rangeQuery,
  rangeQueryShape,
  screeningHitRow,
  topRuleRow,
} from '../../schemas/http/analytics.js';
import { authenticate, requireOrg, type KeyRing } from '../http/auth.js';
import { parseOr400 } from '../http/validate.js';
import { documentedRouter, type DocumentedRoute } from '../http/service-router.js';

export interface AnalyticsApiDeps {
  reader: AnalyticsReader;
  keys: KeyRing;
  bodyLimit: string;
}

type Route = DocumentedRoute;

const orgParams = z.object({ org_id: z.string() });
const errors = {
  400: { description: 'Invalid query string; message names the parameter and what is wrong', schema: errorBodySchema },
  401: { description: 'Missing or unknown x-api-key, or missing x-org-id', schema: errorBodySchema },
  403: { description: 'The key may not act for this organization', schema: errorBodySchema },
};

const org = (req: Request) => String(req.params.org_id);

function routes(deps: AnalyticsApiDeps): Route[] {
  const ranged = (path: string, name: QueryName, summary: string, row: z.ZodType): Route => ({
    method: 'get',
    path,
    summary,
    params: orgParams,
    query: rangeQueryShape,
    responses: { 200: { description: 'One page of rows', schema: pageOf(row) }, ...errors },
    handle: async (req, res) => {
      const q = parseOr400(rangeQuery, req.query, 'query string');
      res.json({ status: 'ok', data: await deps.reader.page(name, { org_id: org(req), from: clickhouseDateTime(q.from), to: clickhouseDateTime(q.to) }, q.limit, q.offset) });
    },
  });
  return [
    ranged('/v1/analytics/:org_id/decisions/hourly', 'decisionsByRuleHourly', 'Decisions per rule and outcome, per hour', hourlyRow),
    ranged('/v1/analytics/:org_id/rules/top', 'topRules', 'The rules that trigger most', topRuleRow),
    ranged('/v1/analytics/:org_id/screenings/hits', 'screeningHits', 'Screenings per list hit and decision', screeningHitRow),
    {
      method: 'get',
      path: '/v1/analytics/:org_id/transactions/:transaction_id',
      summary: "A transaction's full decision, each rule at the version that decided it",
      description: 'One row per processed rule; rows is empty for a transaction this organization has no decision for.',
      params: orgParams.extend({ transaction_id: z.string() }),
      responses: { 200: { description: 'The decision, one row per rule', schema: pageOf(decisionRuleRow) }, ...errors },
      handle: async (req, res) => {
        const rows = await deps.reader.run('transactionDecision', { org_id: org(req), transaction_id: String(req.params.transaction_id) });
        res.json({ status: 'ok', data: { rows, limit: rows.length, offset: 0, next_offset: null } });
      },
    },
    {
      method: 'get',
      path: '/v1/analytics/:org_id/entities/:entity_id/counters',
      summary: "An entity's counters as last flushed to the counter table",
      description: 'Only the counters of this organization (current and retired). Live values as of now: GET /v1/entities/{org_id}/{entity_id}/realtime.',
      params: orgParams.extend({ entity_id: z.string() }),
      responses: { 200: { description: 'The flushed values, or null', schema: entityCountersSchema }, ...errors },
      handle: async (req, res) => {
        res.json({ status: 'ok', data: await deps.reader.entityCounters(org(req), String(req.params.entity_id)) });
      },
    },
    {
      method: 'get',
      path: '/v1/analytics/:org_id/counters/configs',
      summary: "The organization's counter configurations, newest first",
      params: orgParams,
      query: pageQuery,
      responses: { 200: { description: 'One page of rows', schema: pageOf(counterConfigRow) }, ...errors },
      handle: async (req, res) => {
        const q = parseOr400(pageQuery, req.query, 'query string');
        res.json({ status: 'ok', data: await deps.reader.page('counterConfigHistory', { org_id: org(req) }, q.limit, q.offset) });
      },
    },
  ];
}

/** Tenant-scoped reads of the analytics tables, and their OpenAPI document served without credentials. */
export function analyticsRouter(deps: AnalyticsApiDeps): Router {
  const list = routes(deps);
  return documentedRouter({
    style: 'standard',
    bodyLimit: deps.bodyLimit,
    prefixes: ['/v1/analytics'],
    document: {
      title: 'Weir analytics',
      version: '1.0.0',
      description: "An organization's own decisions, rules, screenings and counter configurations, read from ClickHouse (docs/analytics.md).",
      securityHeaders: ['x-org-id', 'x-api-key'],
      tooLarge: errorBodySchema,
      edgeRateLimit: true,
    },
    documentPath: '/v1/analytics/openapi.json',
    routes: list,
    guard: [authenticate(deps.keys), requireOrg({ header: 'x-org-id', param: 'org_id' })],
  });
}
