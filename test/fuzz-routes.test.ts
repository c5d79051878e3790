import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { services } from '../services/index.js';
import { startTestProcess } from './support/process.js';
import { FIXTURE_LISTS_DIR } from './fixtures/sanctions/paths.js';

/** Every service's OpenAPI document: the fuzz sends random requests to every route they list. */
const DOCUMENTS = ['/rule-engine/openapi.json', '/v1/counter-stream/openapi.json', '/v1/aml/openapi.json'];
/** The issue's bound on any answer, bad input included. */
const SLOWEST_MS = 1000;
const RUNS = 600;

interface Operation {
  method: string;
  template: string;
  /** Field names of the documented body, so random bodies sometimes carry the right keys. */
  fields: string[];
}

interface Sent {
  op: Operation;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string | undefined;
}

type Doc = { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>> };

function operationsOf(doc: Doc): Operation[] {
  return Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      fields: Object.keys(op.requestBody?.content['application/json']?.schema.properties ?? {}),
    })),
  );
}

/** Printable ASCII: what an HTTP header value may hold. */
const headerText = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);
const optional = <T>(arb: fc.Arbitrary<T>, freq = 2) => fc.option(arb, { nil: undefined, freq });

// Mostly the caller's own organization, so most requests get past the key checks to the handlers.
const pathValue = fc.oneof(
  { weight: 4, arbitrary: fc.constant('org_a') },
  { weight: 3, arbitrary: fc.constantFrom('org_b', 'user_1', 'ofac-sdn-306', 'rule-1', 'entity_counters', '..', '.', ' ', '%', '\u0000', 'a'.repeat(300)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

const headersArb = fc.record({
  'x-api-key': optional(fc.oneof({ weight: 4, arbitrary: fc.constant('key_a') }, { weight: 1, arbitrary: fc.constant('key_b') }, { weight: 1, arbitrary: headerText }), 6),
  'x-org-id': optional(fc.oneof({ weight: 4, arbitrary: fc.constant('org_a') }, { weight: 1, arbitrary: fc.constantFrom('org_b') }, { weight: 1, arbitrary: headerText }), 6),
  'content-type': optional(fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', 'application/vnd.api+json', 'multipart/form-data')),
  'content-encoding': optional(fc.constantFrom('identity', 'gzip', 'br', 'deflate', 'x-nonsense')),
  'idempotency-key': optional(headerText),
  'x-request-id': optional(headerText),
});

/** A random body: JSON of any shape, the route's own field names with random values, or raw text. */
const bodyArb = (fields: string[]): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    fc.constant(undefined),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    (fields.length > 0 ? fc.dictionary(fc.constantFrom(...fields), fc.jsonValue({ maxDepth: 3 }), { maxKeys: fields.length }) : fc.object()).map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 200 }),
    fc.constantFrom('{', '[', 'null', '"x"', '1e999', '{"__proto__":{"x":1}}', `{"a":${'['.repeat(5000)}`),
  );

const queryArb = fc.dictionary(fc.constantFrom('ruleIds', 'limit', 'offset', 'format', 'x'), fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String)), { maxKeys: 3 });

const requestArb = (operations: Operation[]): fc.Arbitrary<Sent> =>
  fc.constantFrom(...operations).chain((op) => {
    const names = [...op.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    return fc.record({
      op: fc.constant(op),
      path: fc.tuple(...names.map(() => pathValue)).map((values) => {
        let i = 0;
        return op.template.replace(/\{(\w+)\}/g, () => encodeURIComponent(values[i++]!));
      }),
      query: queryArb.map((q) => new URLSearchParams(q).toString()),
      headers: headersArb.map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>),
      body: op.method === 'GET' || op.method === 'DELETE' ? fc.constant(undefined) : bodyArb(op.fields),
    });
  });

describe('fuzz: random requests to every documented route', () => {
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  let operations: Operation[] = [];

  beforeAll(async () => {
    p = await startTestProcess({ services, env: { SANCTIONS_DATA_DIR: FIXTURE_LISTS_DIR, API_KEYS: 'org_a:key_a,org_b:key_b:starter' } });
    for (const doc of DOCUMENTS) operations.push(...operationsOf((await (await fetch(p.url + doc)).json()) as Doc));
    operations = operations.filter((op) => op.template !== '/health');
    // The first screen waits for the lists' first load; the fuzz measures answers, not start-up.
    for (let i = 0; i < 200; i++) {
      const lists = (await (await fetch(`${p.url}/v1/aml/lists`, { headers: { 'x-api-key': 'key_a' } })).json()) as { status: string };
      if (lists.status === 'ready') break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('covers every service', () => {
    const templates = operations.map((op) => op.template);
    for (const prefix of ['/transaction/', '/rules/', '/tables/', '/fields/', '/v1/counters/', '/v1/events/', '/v1/entities/', '/v1/aml/']) {
      expect(templates.some((t) => t.startsWith(prefix)), prefix).toBe(true);
    }
  });

  it(`answers every request below 500 and within ${SLOWEST_MS} ms`, async () => {
    await fc.assert(
      fc.asyncProperty(requestArb(operations), async (sent) => {
        const send = async () => {
          const started = performance.now();
          const res = await fetch(`${p.url}${sent.path}${sent.query ? `?${sent.query}` : ''}`, { method: sent.op.method, headers: sent.headers, body: sent.body });
          const text = await res.text();
          return { status: res.status, text, ms: performance.now() - started };
        };
        let answer = await send();
        // A slow answer is sent again: an input that is slow to answer stays slow every time, while a
        // machine busy with other test files (2 cores, shared) slows one attempt, not three.
        for (let attempt = 1; attempt < 3 && answer.status < 500 && answer.ms >= SLOWEST_MS; attempt++) answer = await send();
        const what = `${sent.op.method} ${sent.path} -> ${answer.status} in ${Math.round(answer.ms)} ms: ${answer.text.slice(0, 300)}`;
        expect(answer.status, what).toBeLessThan(500);
        expect(answer.ms, what).toBeLessThan(SLOWEST_MS);
      }),
      { numRuns: RUNS },
    );
  });
});

/** Every route that reads multipart/form-data; the first test checks the served documents name no other. */
const MULTIPART_ROUTES = ['/api/assets', '/api/compile/file', '/api/render/file', '/api/sources/upload'];
const MULTIPART_RUNS = 300;

/** One part of a multipart body: any field name, filename, type and content, sometimes malformed. */
const partArb = fc.record({
  name: fc.oneof(fc.constantFrom('file', 'theme', 'preview', 'name', 'subtitles'), fc.string({ maxLength: 12 })),
  filename: optional(fc.oneof(fc.constantFrom('a.png', 'script.txt', '../../etc/passwd', 'x'.repeat(300), ''), fc.string({ maxLength: 30 }))),
  type: optional(fc.constantFrom('image/png', 'text/plain', 'application/octet-stream', 'video/mp4', 'multipart/mixed', 'x/y; charset=nope', '')),
  content: fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
    fc.string({ maxLength: 300 }).map((s) => Buffer.from(s)),
    fc.constantFrom('film "A"\nscene "s" 1s\n  title "x"', 'true', 'paper', '\uFFFD').map((s) => Buffer.from(s)),
    // Around the upload limit of the fuzzed process (ASSET_MAX_BYTES below), PNG-looking and not.
    fc.integer({ min: 1_900, max: 2_100 }).map((n) => Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(n)])),
  ),
});

type Multipart = typeof multipartArb extends fc.Arbitrary<infer T> ? T : never;

/** A multipart body: well-formed parts, or the same cut short, with a bad boundary, or no closing delimiter. */
const multipartArb = fc.record({
  boundary: fc.oneof(fc.constant('weirfuzzboundary'), fc.stringMatching(/^[A-Za-z0-9'()+_,-./:=?]{1,70}$/)),
  declared: fc.oneof(fc.constant('same'), fc.constant('none'), fc.constant('other')),
  parts: fc.array(partArb, { maxLength: 5 }),
  damage: fc.constantFrom('none', 'truncate', 'no-close', 'crlf-missing'),
  cut: fc.nat(),
});

function multipartBody(m: Multipart): { contentType: string; body: Buffer } {
  const parts = m.parts.map((p) => {
    const disposition = `Content-Disposition: form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
    const head = [disposition, ...(p.type === undefined ? [] : [`Content-Type: ${p.type}`])].join('\r\n');
    return Buffer.concat([Buffer.from(`--${m.boundary}\r\n${head}\r\n${m.damage === 'crlf-missing' ? '' : '\r\n'}`), p.content, Buffer.from('\r\n')]);
  });
  let body = Buffer.concat([...parts, Buffer.from(m.damage === 'no-close' ? '' : `--${m.boundary}--\r\n`)]);
  if (m.damage === 'truncate') body = body.subarray(0, m.cut % (body.length + 1));
  const declared = m.declared === 'same' ? `; boundary=${m.boundary}` : m.declared === 'other' ? '; boundary=elsewhere' : '';
  return { contentType: `multipart/form-data${declared}`, body };
}

describe('fuzz: random multipart bodies to every multipart route', () => {
  let p: Awaited<ReturnType<typeof startTestProcess>>;

  beforeAll(async () => {
    p = await startTestProcess({ services, role: 'api', env: { ASSET_MAX_BYTES: '2000', API_KEYS: 'org_a:key_a' } });
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('knows every multipart route the documents describe', async () => {
    const doc = (await (await fetch(`${p.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { description?: string }>> };
    const described = Object.entries(doc.paths).flatMap(([path, ops]) => (Object.values(ops).some((op) => op.description?.includes('multipart/form-data')) ? [path] : []));
    expect(described.sort()).toEqual([...MULTIPART_ROUTES].sort());
  });

  it('answers every random part, size and type below 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...MULTIPART_ROUTES), multipartArb, async (route, m) => {
        const { contentType, body } = multipartBody(m);
        const res = await fetch(`${p.url}${route}`, { method: 'POST', headers: { 'x-api-key': 'key_a', 'content-type': contentType }, body });
        const text = await res.text();
        expect(res.status, `${route} ${contentType} ${body.length} bytes -> ${res.status}: ${text.slice(0, 300)}`).toBeLessThan(500);
        expect(JSON.parse(text)).toMatchObject({ status: expect.any(String) });
      }),
      { numRuns: MULTIPART_RUNS },
    );
  });
});
