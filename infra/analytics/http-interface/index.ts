import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, deflate, gzip } from 'node:zlib';
import type { Logger } from 'pino';
import type { AnalyticsUserEntry } from '../../config.js';
import { AnalyticsUsers } from './users.js';
import { authenticationFailed, badArguments, ClickHouseHttpError, httpStatusOf, ownError } from './errors.js';
import { credentialsOf, queryRequestOf } from './request.js';
import { readBody } from './body.js';
import { runInSession, sessionPreamble, type Limits } from './session.js';
import { Slots } from './slots.js';

export type { Limits } from './session.js';

export interface AnalyticsInterfaceOptions {
  /** The chDB data directory the process already uses. */
  chdbPath: string;
  /** Database of a query that names none (CLICKHOUSE_DATABASE). */
  database: string;
  host: string;
  port: number;
  users: AnalyticsUserEntry[];
  limits: Limits;
  log: Logger;
}

export interface AnalyticsInterface {
  url: string;
  close(): Promise<void>;
}

/** A query's text is small; rows come from the engine, never from the client. */
const BODY_LIMIT = 1024 * 1024;
/** Analysts' queries share two cores with live traffic: two run at a time, a few more wait. */
const RUNNING = 2;
const WAITING = 32;

const COMPRESSORS: [string, (b: Uint8Array) => Promise<Buffer>][] = [
  ['gzip', promisify(gzip)],
  ['br', promisify(brotliCompress)],
  ['deflate', promisify(deflate)],
];

/** The fields of a multipart body (the client's `use_multipart_params`). */
async function formFields(body: Buffer, contentType: string): Promise<Map<string, string>> {
  try {
    const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    return new Map([...form].map(([k, v]) => [k, String(v)]));
  } catch {
    throw badArguments('The multipart/form-data body could not be read');
  }
}

/**
 * The part of ClickHouse's HTTP interface that its clients use (`@clickhouse/client`, Grafana's
 * plugin, curl), served from this process over its chDB engine: `POST /` and `GET /?query=`,
 * `database`, `default_format`, settings and `param_*` in the URL, `/ping`, gzip, deflate or br
 * both ways. Read-only by ClickHouse's `readonly` setting, limited in time and result size.
 */
export async function serveAnalyticsInterface(opts: AnalyticsInterfaceOptions): Promise<AnalyticsInterface> {
  const users = new AnalyticsUsers(opts.users);
  const slots = new Slots(RUNNING, WAITING);
  const log = opts.log.child({ component: 'analytics-http' });

  const answerQuery = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const { user, password } = credentialsOf(url, req.headers);
    if (!users.verify(user, password)) throw authenticationFailed(user);
    const body = req.method === 'POST' ? await readBody(req, BODY_LIMIT) : Buffer.alloc(0);
    const contentType = req.headers['content-type'] ?? '';
    const form = contentType.startsWith('multipart/form-data') ? await formFields(body, contentType) : undefined;
    const query = queryRequestOf(url, req.headers, body.toString('utf8'), form);
    const format = query.defaultFormat ?? 'TabSeparated';
    const release = await slots.take();
    let out;
    try {
      out = await runInSession(opts.chdbPath, sessionPreamble(query, opts.limits, opts.database), query.sql, format);
    } finally {
      release();
    }
    res.setHeader('X-ClickHouse-Query-Id', query.queryId ?? randomUUID());
    res.setHeader('X-ClickHouse-Format', format);
    // What the engine reports of the query; a read-only query writes nothing.
    res.setHeader('X-ClickHouse-Summary', JSON.stringify({
      read_rows: String(out.rowsRead), read_bytes: String(out.bytesRead), written_rows: '0', written_bytes: '0',
      result_bytes: String(out.bytes.byteLength), elapsed_ns: String(Math.round(out.elapsedSeconds * 1e9)),
    }));
    res.setHeader('Content-Type', 'text/plain; charset=UTF-8');
    const accepted = String(req.headers['accept-encoding'] ?? '').toLowerCase();
    const codec = query.compressResponse ? COMPRESSORS.find(([name]) => accepted.includes(name)) : undefined;
    if (codec) {
      res.setHeader('Content-Encoding', codec[0]);
      res.end(await codec[1](out.bytes));
    } else {
      res.end(out.bytes);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://analytics');
    if (url.pathname === '/ping' || (url.pathname === '/' && req.method === 'GET' && !url.searchParams.has('query'))) {
      res.setHeader('Content-Type', 'text/html; charset=UTF-8');
      res.end('Ok.\n');
      return;
    }
    if (url.pathname !== '/' || (req.method !== 'GET' && req.method !== 'POST')) {
      // As a server answers a request no handler takes: plain text, no exception code.
      res.statusCode = url.pathname !== '/' ? 404 : 405;
      res.setHeader('Content-Type', 'text/plain; charset=UTF-8');
      res.end(`There is no handle ${req.method} ${url.pathname}: send queries with POST / or GET /?query=, health checks to /ping\n`);
      req.resume();
      return;
    }
    await answerQuery(req, res, url);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const e = err instanceof ClickHouseHttpError ? err : ownError(1002, 'UNKNOWN_EXCEPTION', 'the request failed');
      if (!(err instanceof ClickHouseHttpError)) log.error({ err }, 'analytics request failed');
      else log.debug({ code: e.code, type: e.type }, 'analytics query refused');
      if (res.headersSent) return void res.destroy();
      res.statusCode = httpStatusOf(e.type);
      res.setHeader('X-ClickHouse-Exception-Code', String(e.code));
      res.setHeader('Content-Type', 'text/plain; charset=UTF-8');
      res.end(`${e.text}\n`);
      req.resume();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`;
  log.info({ url }, 'analytics interface listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
