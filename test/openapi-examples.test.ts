import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { services } from '../services/index.js';
import { startTestProcess } from './support/process.js';
import { FIXTURE_LISTS_DIR } from './fixtures/sanctions/paths.js';

/**
 * An integrator copies the examples of the served OpenAPI documents: each JSON request body must
 * carry one, and the running app must take it (no validation error), or the documents teach a body
 * the service refuses. The documents must also stand alone, naming no text outside the repository.
 */
const DOCUMENTS = [
  '/v1/counter-stream/openapi.json',
  '/rule-engine/openapi.json',
  '/v1/aml/openapi.json',
  '/risk/openapi.json',
  '/webhooks/openapi.json',
  '/api/openapi.json',
  '/v1/analytics/openapi.json',
];

interface Media {
  schema?: { $ref?: string; example?: unknown };
  example?: unknown;
}
interface Doc {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, Media> } }>>;
  components?: { schemas?: Record<string, { example?: unknown }> };
}
interface Body {
  document: string;
  method: string;
  template: string;
  example: unknown;
}

/** The example of a JSON body: on the media type, else on its schema (followed through a $ref). */
function exampleOf(doc: Doc, media: Media): unknown {
  if (media.example !== undefined) return media.example;
  const ref = media.schema?.$ref;
  const schema = ref ? doc.components?.schemas?.[ref.split('/').pop()!] : media.schema;
  return schema?.example;
}

const ORG = 'org_a';
const KEY = 'key_a';
/** Path parameters: the caller's organization, the example's own value of that name (a body naming its path), else a plain id. */
const fill = (template: string, example: unknown) =>
  template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (/^org/i.test(name)) return ORG;
    const own = typeof example === 'object' && example !== null ? (example as Record<string, unknown>)[name] : undefined;
    return typeof own === 'string' ? encodeURIComponent(own) : 'example-id';
  });

describe('OpenAPI request examples', () => {
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  const bodies: Body[] = [];
  const texts: Record<string, string> = {};

  beforeAll(async () => {
    p = await startTestProcess({ services, env: { SANCTIONS_DATA_DIR: FIXTURE_LISTS_DIR, API_KEYS: `${ORG}:${KEY}` } });
    for (const document of DOCUMENTS) {
      const text = await (await fetch(p.url + document)).text();
      texts[document] = text;
      const doc = JSON.parse(text) as Doc;
      for (const [template, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          const media = op.requestBody?.content['application/json'];
          if (media) bodies.push({ document, method: method.toUpperCase(), template, example: exampleOf(doc, media) });
        }
      }
    }
  }, 120_000);
  afterAll(async () => {
    await p?.stop();
  });

  it('finds the JSON bodies of every service', () => {
    for (const document of DOCUMENTS.filter((d) => d !== '/v1/analytics/openapi.json')) {
      expect(bodies.some((b) => b.document === document), document).toBe(true);
    }
  });

  it('gives every JSON request body an example', () => {
    expect(bodies.filter((b) => b.example === undefined).map((b) => `${b.method} ${b.template}`)).toEqual([]);
  });

  it('sends every example to the running app and none is refused as invalid', async () => {
    const refused: string[] = [];
    for (const b of bodies.filter((x) => x.example !== undefined)) {
      const res = await fetch(p.url + fill(b.template, b.example), {
        method: b.method,
        headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'x-org-id': ORG },
        body: JSON.stringify(b.example),
      });
      const answer = (await res.json().catch(() => ({}))) as { error?: unknown; message?: unknown };
      // Other 400s (a code that does not verify, an unknown id) judge the state, not the body's shape.
      if (res.status === 400 && ['validation_error', 'malformed_json'].includes(String(answer.error))) {
        refused.push(`${b.method} ${b.template}: ${String(answer.message)}`);
      }
    }
    expect(refused).toEqual([]);
  }, 120_000);

  it('names no document outside the repository', () => {
    const outside = Object.entries(texts)
      .filter(([, text]) => /CONTRACTS\.md|Document \d|shared\/spec/.test(text))
      .map(([document]) => document);
    expect(outside).toEqual([]);
  });
});
