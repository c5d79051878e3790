import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { forbidden, HttpError, unauthorized } from './errors.js';
import { keyDigest } from '../../infra/api-keys.js';
import { checkOrgHeader, type Principal } from './auth.js';
import type { ObserveRequest } from './metrics.js';
import { sendError, type ErrorStyle } from './present-error.js';
import type { EdgeLimiter } from './rate-limit.js';
import { beginRequest } from './request-log.js';

/**
 * Lanes: hot routes answered on node:http directly, ahead of Express. Express's own dispatch (its
 * request and response decoration and the router's walk over every layer) costs about a quarter of
 * a millisecond of main-thread CPU per request on these 2-core machines, a quarter of all that
 * POST /transaction costs (bench/results/rules.md). A lane takes only the plain case of its route
 * (a JSON body, no content encoding, an API key) and declines every other request to the same
 * route in Express, so the two share one handler and Express stays the reference for anything
 * unusual. A lane keeps every edge rule: request id and log line, latency metric, the edge-wide
 * rate limit, body size limit, key and organization checks (against the edge's key ring), and
 * error bodies in its service's style.
 */
export interface LaneRoute {
  method: 'POST';
  /** An Express path template: `/transaction/:orgId`. */
  path: string;
  /** Where the organization the API key must belong to is named: a path parameter or a header (lower case, as node names headers). */
  org: { param: string } | { header: string };
  style: ErrorStyle;
  /** Like BODY_LIMIT: `512kb`, `1mb`. */
  bodyLimit: string;
  /** Answers JSON text; throws HttpError or ZodError as Express handlers do. */
  handle(req: LaneRequest): Promise<LaneAnswer>;
}

export interface LaneRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** As node reads them (names in lower case), for the headers a route honours: Idempotency-Key. */
  headers: IncomingHttpHeaders;
  principal: Principal;
  log: Logger;
}

export interface LaneAnswer {
  status: number;
  json: string;
  headers?: Record<string, string>;
}

export interface EdgeParts {
  log: Logger;
  limiter: EdgeLimiter;
  observe: ObserveRequest;
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };

/** `512kb` → 524288 (the units of BODY_LIMIT, as Express reads them). */
export function byteSize(limit: string): number {
  const m = /^(\d+)(b|kb|mb)$/i.exec(limit);
  if (!m) throw new Error(`not a size: ${limit}`);
  return Number(m[1]) * UNITS[m[2]!.toLowerCase()]!;
}

interface CompiledLane {
  route: LaneRoute;
  pattern: RegExp;
  names: string[];
  maxBytes: number;
}

function compile(route: LaneRoute): CompiledLane {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((part) => {
      if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}/?$`), names, maxBytes: byteSize(route.bodyLimit) };
}

/** The plain case a lane takes: JSON in UTF-8, not compressed, a non-empty key to check, no escapes in the path. */
function plain(req: IncomingMessage, path: string): boolean {
  const type = req.headers['content-type'];
  const encoding = req.headers['content-encoding'];
  const key = req.headers['x-api-key'];
  return (
    typeof key === 'string' &&
    key !== '' &&
    !path.includes('%') &&
    (encoding === undefined || encoding === 'identity') &&
    type !== undefined &&
    /^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type)
  );
}

function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > maxBytes) return reject(new HttpError(413, 'payload_too_large', 'request body exceeds the size limit'));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError(413, 'payload_too_large', 'request body exceeds the size limit'));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    // A client that goes away mid-body may end the stream with neither 'end' nor 'error'.
    req.on('close', () => req.complete || reject(new HttpError(400, 'aborted', 'the request body ended early')));
  });
}

function parseJson(text: string): unknown {
  // As Express's JSON parser: an empty body is an empty object.
  if (text.length === 0) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new HttpError(400, 'malformed_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

async function serve(lane: CompiledLane, match: RegExpExecArray, req: IncomingMessage, res: ServerResponse, edge: EdgeParts): Promise<void> {
  const { route } = lane;
  const request = beginRequest(edge.log, req, res);
  edge.observe(route.method, res, () => route.path);
  const params: Record<string, string> = {};
  lane.names.forEach((name, i) => (params[name] = match[i + 1]!));
  // The limit and the key come before the body, which is then drained unread: a caller without a
  // known key, or over its limit, never has its body buffered or parsed.
  let principal: Principal | null;
  try {
    principal = edge.limiter.admit(keyDigest(req.headers['x-api-key'] as string), req.socket.remoteAddress, res);
  } catch (err) {
    req.resume();
    return sendError(res, 'standard', err, request); // in the edge's style, as before Express's routers
  }
  try {
    if (!principal) throw unauthorized();
    if ('header' in route.org) checkOrgHeader(principal, route.org.header, req.headers[route.org.header] as string | undefined);
    else if (principal.orgId !== params[route.org.param]) throw forbidden();
  } catch (err) {
    req.resume();
    return sendError(res, route.style, err, request);
  }
  try {
    const body = parseJson(await readBody(req, lane.maxBytes));
    const url = req.url!;
    const q = url.indexOf('?');
    const answer = await route.handle({ params, query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)), body, headers: req.headers, principal, log: request.log });
    res.writeHead(answer.status, { ...answer.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer.json) });
    res.end(answer.json);
  } catch (err) {
    sendError(res, route.style, err, request);
  }
}

/** The edge's request listener: lanes first, then Express (`fallback`) for everything they decline. */
export function withLanes(routes: LaneRoute[], edge: EdgeParts, fallback: RequestListener): RequestListener {
  const lanes = routes.map(compile);
  if (lanes.length === 0) return fallback;
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    for (const lane of lanes) {
      if (req.method !== lane.route.method) continue;
      const match = lane.pattern.exec(path);
      if (match && plain(req, path)) return void serve(lane, match, req, res, edge);
    }
    fallback(req, res);
  };
}
