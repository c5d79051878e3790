import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screeningService } from '../services/screening.js';
import { startTestProcess } from './support/process.js';
import { fetchOpenApi, requiredOf, undocumentedRoutes } from './support/openapi.js';
import { FIXTURE_LISTS_DIR } from './fixtures/sanctions/paths.js';

let p: Awaited<ReturnType<typeof startTestProcess>>;

beforeAll(async () => {
  p = await startTestProcess({ services: [screeningService], env: { SANCTIONS_DATA_DIR: FIXTURE_LISTS_DIR, API_KEYS: 'org_a:key_a:enterprise' } });
});
afterAll(async () => {
  await p?.stop();
});

describe('screening OpenAPI document', () => {
  it('is served without credentials, outside the plan rate limit, and documents every endpoint the router serves', async () => {
    const { doc, headers } = await fetchOpenApi(`${p.url}/v1/aml/openapi.json`);
    expect(headers.get('x-ratelimit-limit')).toBeNull();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/aml/screen', '/v1/aml/screen/batch', '/v1/aml/agent/lookup', '/v1/aml/entity/{id}/relationships', '/v1/aml/config', '/v1/aml/lists']),
    );
    expect(await undocumentedRoutes(p.url, doc, {}, { 'x-api-key': 'key_a' })).toEqual([]);
  });

  it('describes request bodies from the validation schemas', async () => {
    const { doc } = await fetchOpenApi(`${p.url}/v1/aml/openapi.json`);
    expect(requiredOf(doc, '/v1/aml/screen', 'post')).toEqual(['name']);
    expect(requiredOf(doc, '/v1/aml/screen/batch', 'post')).toEqual(['names']);
    expect(doc.components?.schemas?.ScreeningError).toMatchObject({ required: expect.arrayContaining(['status', 'error', 'message']) });
    // The screen answer and its match explanation are documented, with an example.
    expect(doc.components?.schemas?.ScreenAnswer).toMatchObject({ example: { decision: 'BLOCK', match: { explanation: { rule: 'inner_names_missing' } } } });
    expect(doc.components?.schemas?.ScreeningExplanation).toMatchObject({ required: expect.arrayContaining(['matched_name', 'name_kind', 'tokens', 'attributes', 'thresholds']) });
  });
});
