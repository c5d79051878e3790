import type { Request, Router } from 'express';
import { z } from 'zod';
import type { Analytics } from '../../infra/analytics/types.js';
import { orgEntityCountersSql, QUERIES, type QueryName } from '../../domain/analytics/queries.js';
import type { CounterColumn } from '../../domain/counters/compile.js';
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

/** An organization's counter table and the columns it writes there; null before its first configuration. */
export type CounterColumns = (orgId: string) => Promise<{ table: string; columns: CounterColumn[] } | null>;

export interface AnalyticsApiDeps {
  analytics: Analytics;
  keys: KeyRing;
  counterColumns: CounterColumns;
  bodyLimit: string;
}

type Route = DocumentedRoute;

const orgParams = z.object({ org_id: z.string() });
const errors = {
  400: { description: 'Invalid query string; message names the parameter and what is wrong', schema: errorBodySchema },
  401: { description: 'Missing or unknown x-api-key, or missing x-org-id', schema: errorBodySchema },
  403: { description: 'The key may not act for this organization', schema: errorBodySchema },
};

/** Columns answered as ClickHouse DateTime text, turned into RFC 3339. */
const TIME_COLUMNS = new Set(['hour', 'minute', 'decided_at', 'created_at']);
const rfc3339 = (v: unknown) => (typeof v === 'string' ? `${v.replace(' ', 'T')}Z` : v);

/** An entity's counters as last flushed, only the organization's own columns. */
async function entityCounters(deps: AnalyticsApiDeps, orgId: string, entityId: string) {
  const own = await deps.counterColumns(orgId);
  if (!own) return null;
  const rs = await deps.analytics.query({
    query: orgEntityCountersSql(own.table, own.columns.map((c) => c.name)),
    query_params: { org_id: orgId, entity_id: entityId },
    format: 'JSONEachRow',
  });
  const [row] = await rs.json<Record<string, unknown>>();
  if (!row) return null;
  const counters = Object.fromEntries(own.columns.map((c) => [c.name, c.type === 'datetime' ? (rfc3339(row[c.name]) ?? null) : (row[c.name] ?? null)]));
  return { entity_id: entityId, counters, updated_at: rfc3339(row.updated_at) };
}

/**
 * Runs a documented query with the organization of the path as its `org_id` parameter: the caller
 * chooses the question and its range, never the SQL or the organization. 64-bit integers come as
 * JSON numbers on both back ends (a ClickHouse server quotes them by default).
 */
async function run(analytics: Analytics, name: QueryName, params: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const rs = await analytics.query({
    query: QUERIES[name].sql,
    query_params: params,
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  });
  const rows = await rs.json<Record<string, unknown>>();
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, TIME_COLUMNS.has(k) ? rfc3339(v) : v])));
}

/** One page: a row more than the page is read to know whether another page follows. */
async function page(analytics: Analytics, name: QueryName, params: Record<string, unknown>, limit: number, offset: number) {
  const rows = await run(analytics, name, { ...params, limit: limit + 1, offset });
  return { status: 'ok', data: { rows: rows.slice(0, limit), limit, offset, next_offset: rows.length > limit ? offset + limit : null } };
}

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
      res.json(await page(deps.analytics, name, { org_id: org(req), from: clickhouseDateTime(q.from), to: clickhouseDateTime(q.to) }, q.limit, q.offset));
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
        const rows = await run(deps.analytics, 'transactionDecision', { org_id: org(req), transaction_id: String(req.params.transaction_id) });
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
        res.json({ status: 'ok', data: await entityCounters(deps, org(req), String(req.params.entity_id)) });
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
        res.json(await page(deps.analytics, 'counterConfigHistory', { org_id: org(req) }, q.limit, q.offset));
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
