import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { videoService } from '../services/video.js';
import { startTestProcess } from './support/process.js';
import { videoClient } from './fixtures/video-client.js';
import { CUTS, makeSourceMedia } from './fixtures/source-media.js';

/**
 * The agent transport with the MCP SDK's own client: OAuth discovery from the 401 challenge,
 * client credentials of a database principal, then tools over streamable HTTP.
 */

let p: Awaited<ReturnType<typeof startTestProcess>>;
beforeAll(async () => {
  p = await startTestProcess({ services: [videoService], env: { BEARER_SIGNING_SECRET: 'video-mcp-test-signing-secret' } });
});
afterAll(async () => {
  await p?.stop();
});

async function principal(scopes: string[]): Promise<{ id: string; apiKey: string }> {
  const res = await fetch(`${p.url}/api/principals`, {
    method: 'POST',
    headers: { 'x-api-key': 'key_a', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'agent', scopes }),
  });
  const body = (await res.json()) as { principal: { id: string }; apiKey: string };
  return { id: body.principal.id, apiKey: body.apiKey };
}

async function connect(c: { id: string; apiKey: string }): Promise<Client> {
  const authProvider = new ClientCredentialsProvider({ clientId: c.id, clientSecret: c.apiKey, expectedIssuer: p.url });
  const client = new Client({ name: 'weir-test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/api/mcp`), { authProvider }));
  return client;
}

const parsed = (r: Awaited<ReturnType<Client['callTool']>>) => JSON.parse((r.content as { type: string; text: string }[])[0]!.text) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('MCP agent transport', () => {
  it('the SDK client gets a client-credentials token through discovery, lists the tools and compiles a script', async () => {
    const client = await connect(await principal(['render:write', 'render:read', 'templates:read']));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['clip_candidates', 'clip_document', 'clip_refine', 'compile', 'document_edit', 'document_save', 'documents', 'render', 'status', 'templates']);
      expect(tools.find((t) => t.name === 'compile')?.inputSchema).toMatchObject({ type: 'object', required: ['source'] });
      const ok = await client.callTool({ name: 'compile', arguments: { source: 'film "Agent"\naspect 1:1\nscene "One" 2s\n  title "Hi"' } });
      expect(ok.isError).toBeFalsy();
      expect(parsed(ok)).toMatchObject({ ok: true, renderGraph: { version: '1', film: { title: 'Agent', width: 1080, height: 1080 } } });
      const bad = await client.callTool({ name: 'compile', arguments: { source: 'film "A"\nscene "x"\n  titel "y"' } });
      expect(parsed(bad)).toMatchObject({ ok: false, diagnostics: [expect.objectContaining({ level: 'error', line: 2 }), expect.objectContaining({ level: 'error', line: 3, column: 3 })] });
    } finally {
      await client.close();
    }
  });

  it('starts a render of a template through the tools and follows it to completion', async () => {
    const created = await fetch(`${p.url}/api/templates`, {
      method: 'POST',
      headers: { 'x-api-key': 'key_a', 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'agent-card',
        description: 'A one-scene card',
        variables: [{ name: 'headline', type: 'string', required: true }],
        source: 'film "Card"\naspect 1:1\nscene "One" 1s\n  background #203040\n  title "{{headline}}"',
      }),
    });
    expect(created.status).toBeLessThan(300);
    const client = await connect(await principal(['render:write', 'render:read', 'templates:read']));
    try {
      const listed = parsed(await client.callTool({ name: 'templates', arguments: {} }));
      expect(listed.templates).toContainEqual(expect.objectContaining({ name: 'agent-card', variables: [expect.objectContaining({ name: 'headline', required: true })] }));
      expect(parsed(await client.callTool({ name: 'templates', arguments: { name: 'agent-card' } })).source).toContain('{{headline}}');

      const missing = await client.callTool({ name: 'render', arguments: { template: 'agent-card', variables: {} } });
      expect(missing.isError).toBe(true);
      expect(parsed(missing).error).toMatch(/headline is required/);

      const started = parsed(await client.callTool({ name: 'render', arguments: { template: 'agent-card', variables: { headline: 'From an agent' }, preview: true } }));
      expect(started).toMatchObject({ jobId: expect.any(String), status: 'queued' });
      let job = started;
      while (job.status === 'queued' || job.status === 'rendering') {
        await new Promise((r) => setTimeout(r, 250));
        job = parsed(await client.callTool({ name: 'status', arguments: { jobId: started.jobId } }));
        expect(job.progress).toBeGreaterThanOrEqual(0);
      }
      expect(job).toMatchObject({ status: 'complete', progress: 1, output: { url: `${p.url}/api/video/${started.jobId}`, durationSeconds: expect.closeTo(1, 1) } });
      const video = await fetch(job.output.url, { headers: { 'x-api-key': 'key_a' } });
      expect(video.status).toBe(200);
      expect(video.headers.get('content-type')).toMatch(/video\/mp4/);
      expect((await video.arrayBuffer()).byteLength).toBe(job.output.sizeBytes);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('creates, reads and edits a document through the tools, each with its documents scope; a failing edit answers its diagnostics', async () => {
    const writer = await connect(await principal(['documents:read', 'documents:write']));
    const reader = await connect(await principal(['documents:read']));
    try {
      const doc = parsed(await writer.callTool({ name: 'document_save', arguments: { name: 'Agent doc', source: 'film "A"\nscene "One" 2s\n  title "Hi"\n' } }));
      expect(doc).toMatchObject({ id: expect.stringMatching(/^doc_/), version: 1 });
      const edited = parsed(await writer.callTool({ name: 'document_edit', arguments: { id: doc.id, ops: [{ op: 'replace', path: '/scenes/0/layers/0/text', value: 'Hello' }], ifVersion: 1 } }));
      expect(edited).toMatchObject({ version: 2, source: 'film "A"\nscene "One" 2s\n  title "Hello"\n' });
      const broken = await writer.callTool({ name: 'document_edit', arguments: { id: doc.id, ops: [{ op: 'replace', path: '/scenes/0/duration', value: 0 }] } });
      expect(broken.isError).toBe(true);
      expect(parsed(broken)).toMatchObject({ diagnostics: [expect.objectContaining({ level: 'error', code: 'out-of-range', line: 2 })] });
      const stale = await writer.callTool({ name: 'document_save', arguments: { id: doc.id, source: 'film "B"\nscene "x" 1s\n', ifVersion: 1 } });
      expect(parsed(stale)).toMatchObject({ currentVersion: 2 });
      expect(parsed(await reader.callTool({ name: 'documents', arguments: { id: doc.id } }))).toMatchObject({ version: 2, lock: { locked: false } });
      expect(parsed(await reader.callTool({ name: 'documents', arguments: { id: doc.id, version: 1 } })).source).toContain('"Hi"');
      expect(parsed(await reader.callTool({ name: 'documents', arguments: {} })).documents.map((d: { id: string }) => d.id)).toContain(doc.id);
      const refused = await reader.callTool({ name: 'document_save', arguments: { id: doc.id, source: 'film "C"' } });
      expect(parsed(refused)).toEqual({ error: 'this credential lacks the scope documents:write' });
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  });

  it('finds clip candidates, refines a window and makes and redrafts a clip document through the tools, each with its scope', async () => {
    const source = await videoClient(p.url, 'key_a').upload('/api/sources/upload', makeSourceMedia({ subtitleTrack: true }), 'talk.mp4');
    const id = source.body.id as string;
    const agent = await connect(await principal(['sources:read', 'documents:read', 'documents:write']));
    const reader = await connect(await principal(['documents:read', 'documents:write']));
    try {
      const early = await agent.callTool({ name: 'clip_candidates', arguments: { sourceId: id, goal: 'weather' } });
      expect(early.isError).toBe(true);
      expect(parsed(early).error).toMatch(/has not been preprocessed/);
      await videoClient(p.url, 'key_a').preprocess(id);
      // Six seconds of media hold the word but no window of 15–60 s.
      expect(parsed(await agent.callTool({ name: 'clip_candidates', arguments: { sourceId: id, goal: 'weather' } }))).toMatchObject({ candidates: [], terms: ['weather'], reason: expect.stringMatching(/15–60 s/) });
      // The second sentence starts at 3.5 s, half a second before the cut at 4 s; the first ends at 3 s.
      const refined = parsed(await agent.callTool({ name: 'clip_refine', arguments: { sourceId: id, start: 3.6, end: 5 } }));
      expect(refined).toMatchObject({ startsOn: 'cut', endsOn: 'sentence', end: 6 });
      expect(Math.abs(refined.start - CUTS[1]!)).toBeLessThanOrEqual(0.2);
      const doc = parsed(await agent.callTool({ name: 'clip_document', arguments: { sourceId: id, start: 0.5, end: 3, name: 'Weather' } }));
      expect(doc).toMatchObject({ version: 1, metadata: { clip: { sourceId: id, start: 0.5, end: 3 } } });
      expect(doc.source).toContain('caption "the weather is nice today" at 0s to 2.5s');
      const redrafted = parsed(await agent.callTool({ name: 'clip_document', arguments: { id: doc.id, start: 3.5, end: 6, ifVersion: 1 } }));
      expect(redrafted).toMatchObject({ version: 2, metadata: { clip: { start: 3.5, end: 6 } } });
      expect(redrafted.source).toContain('caption "please open the door"');
      expect(parsed(await reader.callTool({ name: 'clip_refine', arguments: { sourceId: id, start: 1, end: 2 } }))).toEqual({ error: 'this credential lacks the scope sources:read' });
    } finally {
      await Promise.all([agent.close(), reader.close()]);
    }
  }, 120_000);

  it('status and templates stay inside the organization of the credential', async () => {
    const res = await fetch(`${p.url}/api/principals`, {
      method: 'POST',
      headers: { 'x-api-key': 'key_b', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'other-org-agent', scopes: ['render:read', 'templates:read'] }),
    });
    const b = (await res.json()) as { principal: { id: string }; apiKey: string };
    const client = await connect({ id: b.principal.id, apiKey: b.apiKey });
    try {
      expect(parsed(await client.callTool({ name: 'templates', arguments: {} })).templates.map((t: { name: string }) => t.name)).not.toContain('agent-card');
      const other = await client.callTool({ name: 'templates', arguments: { name: 'agent-card' } });
      expect(other.isError).toBe(true);
      const status = await client.callTool({ name: 'status', arguments: { jobId: 'job_of_someone_else' } });
      expect(parsed(status).error).toMatch(/no render job/);
    } finally {
      await client.close();
    }
  });

  it('a tool whose scope the credential lacks answers a tool error naming the scope', async () => {
    const client = await connect(await principal(['render:read']));
    try {
      const r = await client.callTool({ name: 'compile', arguments: { source: 'film "A"' } });
      expect(r.isError).toBe(true);
      expect(parsed(r)).toEqual({ error: 'this credential lacks the scope render:write' });
    } finally {
      await client.close();
    }
  });

  it('refuses a client without credentials or with a wrong secret', async () => {
    const anonymous = new Client({ name: 'anon', version: '1.0.0' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/api/mcp`)))).rejects.toThrow(/401|Unauthorized/i);
    const c = await principal(['render:write']);
    await expect(connect({ id: c.id, apiKey: 'wrong' })).rejects.toThrow(/invalid_client|Unauthorized|client/i);
  });

  it('GET /api/mcp/tools lists the tools with their scopes for a bearer token', async () => {
    const c = await principal(['render:read']);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: c.id, client_secret: c.apiKey });
    const token = (await (await fetch(`${p.url}/oauth/token`, { method: 'POST', body: form })).json()) as { access_token: string };
    const res = await fetch(`${p.url}/api/mcp/tools`, { headers: { authorization: `Bearer ${token.access_token}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { transport: string; tools: { name: string; scope: string }[] };
    expect(body.transport).toBe(`${p.url}/api/mcp`);
    expect(body.tools).toContainEqual(expect.objectContaining({ name: 'compile', scope: 'render:write' }));
  });
});
