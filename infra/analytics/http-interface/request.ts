import type { IncomingHttpHeaders } from 'node:http';
import { badArguments, ownError } from './errors.js';

export interface Credentials {
  user: string;
  password: string;
}

/** One query as a ClickHouse client sends it over HTTP. */
export interface QueryRequest {
  sql: string;
  database?: string;
  /** Output format when the SQL has no FORMAT clause (`default_format`, `X-ClickHouse-Format`). */
  defaultFormat?: string;
  queryId?: string;
  /** Settings named in the URL, applied to this query only. */
  settings: Map<string, string>;
  /** `param_<name>` values, in ClickHouse's text form. */
  params: Map<string, string>;
  /** The client asked for a compressed answer (`enable_http_compression=1`). */
  compressResponse: boolean;
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Credentials as ClickHouse clients send them: HTTP Basic, the `X-ClickHouse-User` and
 * `X-ClickHouse-Key` headers, or the `user` and `password` URL parameters; none is the `default`
 * user with an empty password, as on a server.
 */
export function credentialsOf(url: URL, headers: IncomingHttpHeaders): Credentials {
  const auth = header(headers, 'authorization');
  if (auth?.startsWith('Basic ')) {
    const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    const at = decoded.indexOf(':');
    return at < 0 ? { user: decoded, password: '' } : { user: decoded.slice(0, at), password: decoded.slice(at + 1) };
  }
  const user = header(headers, 'x-clickhouse-user') ?? url.searchParams.get('user') ?? 'default';
  const password = header(headers, 'x-clickhouse-key') ?? url.searchParams.get('password') ?? '';
  return { user, password };
}

/** URL parameters that belong to the HTTP protocol, not to the engine's settings. */
const PROTOCOL = new Set([
  'query', 'database', 'default_format', 'user', 'password', 'query_id', 'session_id', 'session_timeout',
  'session_check', 'quota_key', 'role', 'buffer_size', 'wait_end_of_query', 'compress', 'decompress',
  'enable_http_compression', 'send_progress_in_http_headers', 'add_http_cors_header',
  'cancel_http_readonly_queries_on_client_close',
]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The query of a request: the `query` URL parameter, followed by the body of a POST on a new line
 * (how a server reads `INSERT ... FORMAT X` in the URL with its rows in the body). `form` holds
 * the fields of a multipart body (the client's `use_multipart_params`), which carry the query and
 * `param_*` values instead of the URL.
 */
export function queryRequestOf(url: URL, headers: IncomingHttpHeaders, body: string, form?: Map<string, string>): QueryRequest {
  for (const native of ['compress', 'decompress']) {
    // ClickHouse's own block compression: answering plain text to a client that expects it would be read as garbage.
    if (url.searchParams.get(native) === '1') throw ownError(48, 'NOT_IMPLEMENTED', `${native}=1 (ClickHouse's native compression) is not served: use enable_http_compression=1 and Accept-Encoding, or Content-Encoding`);
  }
  const settings = new Map<string, string>();
  const params = new Map<string, string>();
  const addParam = (key: string, value: string) => {
    const name = key.slice('param_'.length);
    if (!NAME.test(name)) throw badArguments(`Query parameter name '${name}' is not a valid identifier`);
    params.set(name, value);
  };
  for (const [key, value] of url.searchParams) {
    if (key.startsWith('param_')) addParam(key, value);
    else if (PROTOCOL.has(key) || key.startsWith('http_')) continue;
    else if (!NAME.test(key)) throw badArguments(`Setting name '${key}' is not a valid identifier`);
    else settings.set(key, value);
  }
  for (const [key, value] of form ?? []) if (key.startsWith('param_')) addParam(key, value);

  const parts = [url.searchParams.get('query') ?? form?.get('query'), form ? undefined : body].filter((p): p is string => !!p && p.trim() !== '');
  const sql = parts.join('\n');
  if (sql === '') throw ownError(62, 'SYNTAX_ERROR', 'Empty query');
  return {
    sql,
    database: url.searchParams.get('database') ?? header(headers, 'x-clickhouse-database') ?? undefined,
    defaultFormat: url.searchParams.get('default_format') ?? header(headers, 'x-clickhouse-format') ?? undefined,
    queryId: url.searchParams.get('query_id') ?? undefined,
    settings,
    params,
    compressResponse: url.searchParams.get('enable_http_compression') === '1',
  };
}
