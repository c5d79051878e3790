import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isPublicAddress } from '../../domain/webhooks/address.js';
import { deadlines } from './deadlines.js';

/**
 * Outbound HTTP for deliveries (undici): pooled keep-alive connections, at most PER_DESTINATION
 * requests in flight per origin (more wait their turn before their clock starts), one deadline
 * (WEBHOOK_TIMEOUT_MS, shared by the requests of a slot: deadlines.ts) over DNS, connect, headers
 * and the whole body, no redirects followed, at
 * most RESPONSE_LIMIT bytes of an answer kept. Unless private targets are allowed, a name that
 * resolves to a loopback, private or link-local address is refused after resolution, at connect
 * time, so a DNS answer cannot smuggle an internal address past a check made earlier.
 */

export const PER_DESTINATION = 16;
export const RESPONSE_LIMIT = 4096;

export interface SendResult {
  /** HTTP status, or null when no answer came (timeout, refused, reset). */
  status: number | null;
  retryAfter?: string;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
  /** The destination itself is not allowed: retrying cannot help. */
  refused: boolean;
}

export class DestinationRefused extends Error {
  readonly code = 'EDESTREFUSED';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that refuses a name resolving to a non-public address (every outbound fetch of a user's address uses it). */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) return callback(new DestinationRefused(`destination refused: ${hostname} resolves to ${refused.address}, a private, loopback or link-local address`), '');
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
    callback(null, first.address, first.family);
  });
}

/** Why a URL naming a literal non-public address is refused (literal addresses never reach the resolver), or null. */
export function refusedLiteral(target: URL): string | null {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 && !isPublicAddress(host) ? `destination refused: ${host} is a private, loopback or link-local address` : null;
}

/** A small counting semaphore per origin. */
function limiter(max: number) {
  const active = new Map<string, { n: number; waiting: (() => void)[] }>();
  return async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    let slot = active.get(key);
    if (!slot) active.set(key, (slot = { n: 0, waiting: [] }));
    if (slot.n >= max) await new Promise<void>((r) => slot.waiting.push(r));
    else slot.n++;
    try {
      return await fn();
    } finally {
      const next = slot.waiting.shift();
      if (next) next();
      else if (--slot.n === 0) active.delete(key);
    }
  };
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_LIMIT) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_LIMIT).toString('utf8');
}

function describe(err: unknown, timeoutMs: number): { message: string; refused: boolean } {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  if (e instanceof DestinationRefused || (e.cause instanceof DestinationRefused)) return { message: (e instanceof DestinationRefused ? e : (e.cause as Error)).message, refused: true };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
    return { message: `no complete answer within ${timeoutMs} ms`, refused: false };
  }
  return { message: `${e.code ?? e.name ?? 'error'}: ${e.message ?? String(err)}`.slice(0, 500), refused: false };
}

export function createSender(opts: { timeoutMs: number; allowPrivate: boolean }) {
  const agent = new Agent({
    connections: PER_DESTINATION,
    keepAliveTimeout: 30_000,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    connect: { timeout: opts.timeoutMs, ...(opts.allowPrivate ? {} : { lookup: guardedLookup }) },
  });
  const perOrigin = limiter(PER_DESTINATION);
  const deadline = deadlines(opts.timeoutMs);

  /**
   * Sends unless `admit`, asked once a slot to the destination is free, says no (its circuit
   * opened while the delivery waited for the slot): then answers null and sends nothing.
   */
  async function send(url: string, body: Buffer, headers: Record<string, string>, admit: () => boolean = () => true): Promise<SendResult | null> {
    const target = new URL(url);
    const literal = opts.allowPrivate ? null : refusedLiteral(target);
    if (literal) return { status: null, latencyMs: 0, error: literal, responseBody: null, refused: true };
    return perOrigin(target.origin, async () => {
      if (!admit()) return null;
      const started = performance.now();
      const signal = deadline.signal(started);
      try {
        const res = await request(target, { method: 'POST', body, headers, dispatcher: agent, signal });
        const responseBody = await readLimited(res.body);
        const retryAfter = res.headers['retry-after'];
        return {
          status: res.statusCode,
          ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
          latencyMs: Math.round(performance.now() - started),
          error: res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`,
          responseBody,
          refused: false,
        };
      } catch (err) {
        const d = describe(err, opts.timeoutMs);
        return { status: null, latencyMs: Math.round(performance.now() - started), error: d.message, responseBody: null, refused: d.refused };
      }
    });
  }

  return { send, close: () => agent.close() };
}

export type Sender = ReturnType<typeof createSender>;
