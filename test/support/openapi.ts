import { expect } from 'vitest';

export interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: { content: { 'application/json': { schema: { required?: string[] } } } } }>>;
  components?: { schemas?: Record<string, unknown> };
}

/** Fetches a service's OpenAPI document without credentials and checks it is OpenAPI 3.0. */
export async function fetchOpenApi(url: string): Promise<{ doc: OpenApiDoc; headers: Headers }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as OpenApiDoc;
  expect(doc.openapi).toMatch(/^3\.0\.\d+$/);
  return { doc, headers: res.headers };
}

export const requiredOf = (doc: OpenApiDoc, path: string, method: string) => doc.paths[path]?.[method]?.requestBody?.content['application/json'].schema.required ?? [];

/**
 * Sends every documented operation to the server (path parameters filled from `params`, body `{}`)
 * and returns those the server has no route for: the app's fallback answers "no route for ...".
 */
export async function undocumentedRoutes(base: string, doc: OpenApiDoc, params: Record<string, string>, headers: Record<string, string>): Promise<string[]> {
  const missing: string[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => params[name] ?? 'x');
    for (const method of Object.keys(ops)) {
      const hasBody = method !== 'get' && method !== 'delete';
      const res = await fetch(`${base}${path}`, {
        method: method.toUpperCase(),
        headers: { ...headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
        body: hasBody ? '{}' : undefined,
      });
      const body = (await res.json().catch(() => null)) as { message?: string } | null;
      if (res.status === 404 && body?.message?.startsWith('no route for')) missing.push(`${method.toUpperCase()} ${template}`);
    }
  }
  return missing;
}
