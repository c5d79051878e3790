import { z } from 'zod';
import {
  bulkResult,
  decisionView,
  fieldBody,
  fieldView,
  pageQuery,
  previewBody,
  rowPatch,
  rowsBody,
  rowsPage,
  ruleBody,
  ruleEngineEnvelope as ok,
  ruleEngineErrorBody,
  ruleView,
  sqlPreviewItem,
  statusBody,
  tableBody,
  tableView,
  transactionSchema,
} from '../../schemas/http/rules.js';
import { listQueryShape, nextCursorField, pagedHeaders } from '../../schemas/http/paging.js';
import { buildOpenApiDocument, type RouteDoc } from '../http/openapi.js';

export const OPENAPI_PATH = '/rule-engine/openapi.json';

const org = z.object({ orgId: z.string() });
const field = z.object({ orgId: z.string(), fieldName: z.string() });
const rule = z.object({ orgId: z.string(), ruleId: z.string() });
const table = z.object({ orgId: z.string(), tableName: z.string() });
const tableRow = z.object({ orgId: z.string(), tableName: z.string(), id: z.string() });

const error = (description: string) => ({ description, schema: ruleEngineErrorBody });
const errors = {
  400: error('Invalid request; message says what is wrong and where'),
  401: error('Missing or unknown x-api-key'),
  403: error("The key's organization is not orgId"),
};
const missing = { 404: error('No such field, rule, table or row') };
/** Bodies the documented routes take, as an integrator would copy them. */
const TRANSACTION_EXAMPLE = {
  transaction_id: 'txn-1001',
  entity_id: 'user-42',
  amount: 2500,
  currency: 'USD',
  transaction_date: '2026-11-26',
  transaction_time: '10:15:00',
  transaction_type: 'transfer',
  beneficiary_is_cross_border: true,
};
const RULE_EXAMPLE = {
  name: 'Large cross-border transfer',
  description: 'Transfers over 1,000 to another country',
  threshold: 1,
  evaluations: [{ name: 'large_abroad', expression: 'amount > 1000 AND beneficiary_is_cross_border = true', weight: 1 }],
  actions: [{ type: 'review', description: 'Hold for a compliance review' }],
};
const replayedHeaders = z.object({ 'Idempotent-Replayed': z.literal('true').optional().meta({ description: 'Present on a replay: the answer is the decision stored for this transaction_id' }) });
const okWith = (description: string, data: z.ZodType) => ({ description, schema: ok(data) });
/** A list, paged by `limit` and `cursor` (schemas/http/paging.ts). */
const paged = (description: string, item: z.ZodType) => ({
  query: listQueryShape(),
  responses: { 200: { description, schema: ok(z.array(item)).extend({ next_cursor: nextCursorField }), headers: pagedHeaders }, ...errors },
});

/** Every route of the rule engine (api/rules/*.ts); the routes validate with the same schemas. */
const routes: RouteDoc[] = [
  { method: 'get', path: '/fields/:orgId', summary: 'List custom fields, by name', params: org, ...paged('Custom fields', fieldView) },
  {
    method: 'post',
    path: '/fields/:orgId',
    summary: 'Register a custom field transactions may carry',
    params: org,
    body: { schema: fieldBody, example: { name: 'merchant_category', fieldType: 'string' } },
    responses: { 201: { description: 'Created (no body)' }, ...errors, 409: error('The field exists') },
  },
  { method: 'get', path: '/fields/:orgId/:fieldName', summary: 'Read one custom field', params: field, responses: { 200: okWith('The field', fieldView), ...errors, ...missing } },
  { method: 'get', path: '/rules/:orgId', summary: 'List rules, by id', params: org, ...paged('Rules', ruleView) },
  {
    method: 'post',
    path: '/rules/:orgId',
    summary: 'Create a rule; its expressions are checked against the organization schema',
    params: org,
    body: { schema: ruleBody, example: RULE_EXAMPLE },
    responses: { 201: okWith('Id of the new rule', z.object({ ruleId: z.string() })), ...errors },
  },
  { method: 'get', path: '/rules/:orgId/:ruleId', summary: 'Read one rule', params: rule, responses: { 200: okWith('The rule', ruleView), ...errors, ...missing } },
  {
    method: 'put',
    path: '/rules/:orgId/:ruleId',
    summary: 'Replace a rule whole',
    params: rule,
    body: { schema: ruleBody, example: RULE_EXAMPLE },
    responses: { 200: okWith('The saved rule', ruleView), ...errors, ...missing },
  },
  { method: 'delete', path: '/rules/:orgId/:ruleId', summary: 'Delete a rule', params: rule, responses: { 200: okWith('Id of the deleted rule', z.object({ ruleId: z.string() })), ...errors, ...missing } },
  {
    method: 'patch',
    path: '/rules/:orgId/:ruleId/status',
    summary: 'Activate or deactivate a rule',
    params: rule,
    body: { schema: statusBody, example: { active: false } },
    responses: { 200: okWith('The new status', z.object({ ruleId: z.string(), active: z.boolean() })), ...errors, ...missing },
  },
  {
    method: 'post',
    path: '/rules/:orgId/:ruleId/sql-preview',
    summary: 'The parameterised ClickHouse SQL of each evaluation',
    description: "With `transaction`, params hold that transaction's values; without it, NULLs.",
    params: rule,
    body: { schema: previewBody, example: { transaction: TRANSACTION_EXAMPLE } },
    responses: { 200: okWith('One item per evaluation', z.array(sqlPreviewItem)), ...errors, ...missing },
  },
  { method: 'get', path: '/tables/:orgId', summary: 'List custom table names, by name', params: org, ...paged('Table names', z.string()) },
  {
    method: 'post',
    path: '/tables/:orgId',
    summary: 'Create a custom table (lookup, or event_stream with optional windowState)',
    params: org,
    body: {
      schema: tableBody,
      example: {
        tableName: 'blocked_merchants',
        tableType: 'lookup',
        idColumn: 'merchant_id',
        columns: [
          { name: 'merchant_id', type: 'string', nullable: false },
          { name: 'reason', type: 'string' },
        ],
        optimization: { status: 'disabled' },
      },
    },
    responses: { 201: okWith('The table schema', tableView), ...errors, 409: error('The table exists') },
  },
  { method: 'delete', path: '/tables/:orgId/:tableName', summary: 'Drop a custom table and its rows', params: table, responses: { 200: okWith('Name of the dropped table', z.object({ tableName: z.string() })), ...errors, ...missing } },
  {
    method: 'get',
    path: '/tables/:orgId/:tableName/data',
    summary: 'A page of rows, ordered by id',
    params: table,
    query: pageQuery,
    responses: { 200: okWith('Rows with the total count', rowsPage), ...errors, ...missing },
  },
  {
    method: 'put',
    path: '/tables/:orgId/:tableName/data',
    summary: 'Insert up to 10,000 rows; a row that does not fit rejects the whole request',
    params: table,
    body: { schema: rowsBody, example: [{ merchant_id: 'm-77', reason: 'chargebacks' }] },
    responses: { 200: okWith('Counts and warnings', bulkResult), ...errors, ...missing },
  },
  {
    method: 'patch',
    path: '/tables/:orgId/:tableName/data/:id',
    summary: 'Change columns of one row',
    params: tableRow,
    body: { schema: rowPatch, example: { reason: 'card testing' } },
    responses: { 200: okWith('The changed row', z.record(z.string(), z.unknown())), ...errors, ...missing },
  },
  { method: 'get', path: '/tables/:orgId/:tableName/schema', summary: 'Read a table schema', params: table, responses: { 200: okWith('The table schema', tableView), ...errors, ...missing } },
  {
    method: 'post',
    path: '/transaction/:orgId',
    summary: 'Evaluate a transaction; answers once it and its decision are in the transactions topic. Idempotent by transaction_id',
    description: "The body holds the transaction fields below plus the organization's registered custom fields (nullable); any other key is refused.",
    params: org,
    query: z.object({ ruleIds: z.string().optional().meta({ description: 'Comma-separated rule ids to evaluate instead of every active rule' }) }),
    body: { schema: transactionSchema([]), example: TRANSACTION_EXAMPLE },
    responses: {
      200: { ...okWith('The decision; for a transaction_id seen in the last 24 hours, the decision stored for it (`replay: true`)', decisionView), headers: replayedHeaders },
      ...errors,
      409: error('This transaction_id was evaluated in the last 24 hours with another body'),
    },
  },
  { method: 'get', path: OPENAPI_PATH, summary: 'This document', authenticated: false, responses: { 200: { description: 'OpenAPI 3.0 document' } } },
];

export const ruleEngineDocument = () =>
  buildOpenApiDocument(
    {
      title: 'Weir rule engine',
      version: '2.0.0',
      description: "Custom fields, rules, custom tables and transaction decisions. Every 4xx answers {statusCode, message, code, error, timestamp}.",
      securityHeaders: ['x-api-key'],
      tooLarge: ruleEngineErrorBody,
      edgeRateLimit: true,
    },
    routes,
  );
