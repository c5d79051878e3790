/**
 * The studio's client of the video API (same origin). The credential is one of an API key
 * (`x-api-key`), a bearer token, or a demo token from POST /demo/session (same-origin demo auth);
 * it is kept in session storage, so it ends with the tab.
 */

export type Credential = { kind: 'key'; value: string } | { kind: 'bearer'; value: string } | { kind: 'demo'; value: string; expiresAt: string; scopes: string[] };

const STORAGE_KEY = 'weir.studio.credential';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error?: string; message?: string; diagnostics?: { level: 'error' | 'warning'; message: string; line: number; column: number }[]; [k: string]: unknown },
  ) {
    super(body.message ?? `HTTP ${status}`);
  }
}

let credential: Credential | null = null;
try {
  const saved = sessionStorage.getItem(STORAGE_KEY);
  credential = saved ? (JSON.parse(saved) as Credential) : null;
} catch {
  credential = null;
}

export const currentCredential = () => credential;

export function setCredential(c: Credential | null): void {
  credential = c;
  if (c) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(c));
  else sessionStorage.removeItem(STORAGE_KEY);
}

/** The scopes of a token (its `scope` claim, read without checking: the server checks); a key's are unknown here. */
function scopesOf(c: Credential): string[] | undefined {
  if (c.kind === 'demo') return c.scopes;
  if (c.kind === 'key') return undefined;
  try {
    const payload = JSON.parse(atob(c.value.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { scope?: unknown };
    return typeof payload.scope === 'string' ? payload.scope.split(' ') : undefined;
  } catch {
    return undefined;
  }
}

/** Why a panel cannot work with this sign-in, when its token plainly lacks the scope; else undefined. */
export function missingScope(scope: string): string | undefined {
  const scopes = credential && scopesOf(credential);
  return scopes && !scopes.includes(scope) ? `this sign-in has no ${scope} scope` : undefined;
}

/** The header that carries the credential. */
export function authHeaders(): Record<string, string> {
  if (!credential) return {};
  return credential.kind === 'key' ? { 'x-api-key': credential.value } : { authorization: `Bearer ${credential.value}` };
}

/** A demo token for this origin's demo organization (refused unless the server allows this origin). */
export async function demoSession(): Promise<Credential> {
  const r = await fetch('/demo/session', { method: 'POST' });
  const body = (await r.json().catch(() => ({}))) as { accessToken?: string; expiresAt?: string; scopes?: string[]; message?: string };
  if (!r.ok || !body.accessToken) throw new ApiError(r.status, body);
  return { kind: 'demo', value: body.accessToken, expiresAt: body.expiresAt ?? '', scopes: body.scopes ?? [] };
}

async function send(method: string, path: string, init: { json?: unknown; form?: FormData; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
  // A demo token lasts minutes: mint the next one shortly before it lapses.
  if (credential?.kind === 'demo' && Date.parse(credential.expiresAt) - Date.now() < 30_000) setCredential(await demoSession());
  const headers: Record<string, string> = { ...authHeaders(), ...init.headers };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  return fetch(path, { method, headers, body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)), signal: init.signal });
}

/** A JSON call; a non-2xx answer throws ApiError with the service's error body. */
export async function api<T = unknown>(method: string, path: string, init: Parameters<typeof send>[2] = {}): Promise<{ body: T; headers: Headers; status: number }> {
  const r = await send(method, path, init);
  const text = await r.text();
  const body = text ? (JSON.parse(text) as T) : (undefined as T);
  if (!r.ok) throw new ApiError(r.status, (body ?? {}) as ApiError['body']);
  return { body, headers: r.headers, status: r.status };
}

/** A call answering bytes (a preview still). */
export async function apiBlob(method: string, path: string, json: unknown, signal?: AbortSignal): Promise<Blob> {
  const r = await send(method, path, { json, signal });
  if (!r.ok) throw new ApiError(r.status, (await r.json().catch(() => ({}))) as ApiError['body']);
  return r.blob();
}

/** A multipart upload of one file in the field `file`. */
export function upload<T>(path: string, file: File, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', file, file.name);
  return api<T>('POST', path, { form });
}

/** What an error says to a person. */
export const describe = (err: unknown): string => (err instanceof ApiError ? `${err.status}: ${err.message}` : err instanceof Error ? err.message : String(err));
