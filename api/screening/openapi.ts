import { z } from 'zod';
import {
  agentLookupBatchBody,
  agentLookupBody,
  relationshipConfigBody,
  relationshipConfigView,
  relationshipSearchBody,
  screenAnswer,
  screenBatchBody,
  screenBody,
  screeningErrorBody,
} from '../../schemas/http/screening.js';
import { buildOpenApiDocument, type RouteDoc } from '../http/openapi.js';

export const OPENAPI_PATH = '/v1/aml/openapi.json';

const error = (description: string) => ({ description, schema: screeningErrorBody });
const errors = {
  401: error('Missing or unknown X-API-Key'),
  429: error("Over the key's plan limit; Retry-After says when to retry"),
};
const withBody = { 400: error('Invalid request; message says what is wrong and where'), ...errors };
const needsLists = { 503: error('No sanctions lists are in service yet (first load failed)') };
const idempotency =
  'An Idempotency-Key header (1 to 255 characters) is remembered for 24 hours per organization: a retry with the same key and body gets the first answer again (header Idempotent-Replayed: true) and is not screened again; the same key with another body or endpoint is a 409. Answers once the screenings are durably in the screenings topic.';
const idempotent = { 409: error('The Idempotency-Key was used in the last 24 hours for a different request') };

/** Every route of the screening service (api/screening/routes.ts); the routes validate with the same schemas. */
const routes: RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/aml/screen',
    summary: 'Screen one name: CLEAR, REVIEW or BLOCK, with the best match and relationship match',
    description: idempotency,
    body: { schema: screenBody, example: { name: 'Jane Example', dob: '1980-01-31', nationality: 'GB', customer_id: 'cust-42' } },
    responses: {
      200: {
        description: 'Decision, match (listed_on names every list and id of the matched party; explanation writes out the score and decision), weak_alias_match, audit_id and list_version; Server-Timing gives screen and audit durations',
        schema: screenAnswer,
      },
      ...withBody,
      ...idempotent,
      ...needsLists,
    },
  },
  {
    method: 'post',
    path: '/v1/aml/screen/batch',
    summary: 'Screen up to 100 names',
    description: idempotency,
    body: { schema: screenBatchBody, example: { names: ['Jane Example', 'Example Trading LLC'] } },
    responses: { 200: { description: 'One result per name, in order, each with decision, match and weak_alias_match as POST /v1/aml/screen answers them' }, ...withBody, ...idempotent, ...needsLists },
  },
  {
    method: 'post',
    path: '/v1/aml/agent/lookup',
    summary: 'Look a name up for an agent: entity, related entities, markdown profile and citations',
    body: { schema: agentLookupBody, example: { query: 'Example Trading LLC', include_related: true, format: 'json', max_results: 5 } },
    responses: { 200: { description: 'Lookup result; explanation (and, in markdown, a "Why this matched" section) writes out how the match was scored and decided' }, ...withBody, ...needsLists },
  },
  {
    method: 'post',
    path: '/v1/aml/agent/lookup/batch',
    summary: 'Look up to 20 names up',
    body: { schema: agentLookupBatchBody, example: { queries: ['Jane Example', 'Example Trading LLC'] } },
    responses: { 200: { description: 'One result per query, with direct and relationship match counts' }, ...withBody, ...needsLists },
  },
  {
    method: 'post',
    path: '/v1/aml/relationships/search',
    summary: 'Names related to listed entities (relatives, associates, owned companies) that match a name',
    body: { schema: relationshipSearchBody, example: { name: 'Jane Example', min_score: 0.85, limit: 20 } },
    responses: { 200: { description: 'Matches with the listed entity they relate to' }, ...withBody, ...needsLists },
  },
  {
    method: 'get',
    path: '/v1/aml/entity/:id/relationships',
    summary: 'Relationships of one listed entity, both directions',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The entity and its relationships' }, ...errors, 404: error('No listed entity with this id in the list version in service'), ...needsLists },
  },
  { method: 'get', path: '/v1/aml/relationships/stats', summary: 'Counts of extracted relationships, in total, by type and by source', responses: { 200: { description: 'Statistics' }, ...errors, ...needsLists } },
  { method: 'get', path: '/v1/aml/config', summary: "The organization's relationship screening settings", responses: { 200: { description: 'Settings and updated_at (null before the first PUT)', schema: relationshipConfigView }, ...errors } },
  {
    method: 'put',
    path: '/v1/aml/config',
    summary: 'Change relationship screening settings; fields not given keep their value (a merge); what GET answers is taken back unchanged',
    body: { schema: relationshipConfigBody },
    responses: { 200: { description: 'The settings now in force', schema: relationshipConfigView }, ...withBody },
  },
  { method: 'get', path: '/v1/aml/lists', summary: 'The list snapshot in service: status, version, counts per list, last error', responses: { 200: { description: 'Lists status' }, ...errors } },
  { method: 'get', path: OPENAPI_PATH, summary: 'This document (no credentials, not rate limited)', authenticated: false, responses: { 200: { description: 'OpenAPI 3.0 document' } } },
];

export const screeningDocument = () =>
  buildOpenApiDocument(
    {
      title: 'Weir sanctions screening',
      version: '1.0.0',
      description: "Name screening against sanctions lists, with relationship screening. Every response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset for the key's plan.",
      securityHeaders: ['x-api-key'],
      tooLarge: screeningErrorBody,
      edgeRateLimit: false,
    },
    routes,
  );
