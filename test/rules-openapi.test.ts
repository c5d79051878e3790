import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProcess } from './support/process.js';
import { fetchOpenApi, requiredOf, undocumentedRoutes } from './support/openapi.js';
import { rulesService } from '../services/rules.js';
import { countersService, createCounterReader } from '../services/counters.js';

let p: Awaited<ReturnType<typeof startTestProcess>>;

beforeAll(async () => {
  p = await startTestProcess({ services: [countersService, rulesService({ counters: createCounterReader })] });
});
afterAll(async () => {
  await p?.stop();
});

describe('rule engine OpenAPI document', () => {
  it('is served without credentials and documents every endpoint the router serves', async () => {
    const { doc } = await fetchOpenApi(`${p.url}/rule-engine/openapi.json`);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/fields/{orgId}', '/rules/{orgId}/{ruleId}/sql-preview', '/tables/{orgId}/{tableName}/data/{id}', '/transaction/{orgId}']),
    );
    expect(await undocumentedRoutes(p.url, doc, { orgId: 'org_a' }, { 'x-api-key': 'key_a' })).toEqual([]);
  });

  it('describes request bodies from the validation schemas and the rule-engine error body', async () => {
    const { doc } = await fetchOpenApi(`${p.url}/rule-engine/openapi.json`);
    expect(requiredOf(doc, '/rules/{orgId}', 'post')).toEqual(['name', 'description', 'threshold', 'evaluations', 'actions']);
    expect(requiredOf(doc, '/transaction/{orgId}', 'post')).toEqual(
      expect.arrayContaining(['transaction_id', 'entity_id', 'amount', 'currency', 'transaction_date', 'transaction_time']),
    );
    expect(doc.components?.schemas?.RuleEngineError).toMatchObject({ required: expect.arrayContaining(['statusCode', 'message', 'code', 'timestamp']) });
  });

  it('documents the 413 of every route with a body and the edge rate limit of every route', async () => {
    const { doc } = await fetchOpenApi(`${p.url}/rule-engine/openapi.json`);
    const statuses = (path: string, method: 'get' | 'post') => Object.keys((doc.paths[path] as Record<string, { responses: object }>)[method]!.responses);
    expect(statuses('/transaction/{orgId}', 'post')).toEqual(expect.arrayContaining(['200', '400', '413', '429']));
    expect(statuses('/rules/{orgId}', 'get')).toContain('429');
    expect(statuses('/rules/{orgId}', 'get')).not.toContain('413');
    expect(doc.components?.schemas?.EdgeError).toMatchObject({ required: expect.arrayContaining(['status', 'error', 'message', 'request_id']) });
  });
});
