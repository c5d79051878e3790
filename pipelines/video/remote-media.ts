import { PassThrough, type Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { DestinationRefused, guardedLookup, refusedLiteral } from '../webhooks/sender.js';

/**
 * Fetches a source's media from a user's address with the webhooks' outbound safety: unless
 * private targets are allowed, a literal or resolved loopback, private or link-local address is
 * refused at connect time; one deadline over the whole transfer, no redirects.
 */

export class RemoteMediaError extends Error {}

/** A transport failure as the reason a client reads (no stack, no internals). */
function remoteError(err: unknown, timeoutMs: number): RemoteMediaError {
  if (err instanceof RemoteMediaError) return err;
  const e = err as Error & { cause?: unknown };
  if (e instanceof DestinationRefused || e.cause instanceof DestinationRefused) return new RemoteMediaError(`url: ${(e instanceof DestinationRefused ? e : (e.cause as Error)).message}`);
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return new RemoteMediaError(`url: no complete answer within ${timeoutMs} ms`);
  return new RemoteMediaError(`url: the fetch failed (${(e as { code?: string }).code ?? e.name})`);
}

/**
 * The answer's body as a stream, once the address answered 2xx with no declared length over
 * `maxBytes`; the deadline holds over the whole transfer, and a failure of the body comes out of
 * the stream as a RemoteMediaError. The caller enforces `maxBytes` on what streams (media-gate.ts).
 */
export async function fetchRemoteMedia(url: string, o: { timeoutMs: number; maxBytes: number; allowPrivate: boolean }): Promise<Readable> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new RemoteMediaError('url: not an absolute URL');
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new RemoteMediaError(`url: only http and https addresses are fetched, not ${target.protocol}`);
  const literal = o.allowPrivate ? null : refusedLiteral(target);
  if (literal) throw new RemoteMediaError(`url: ${literal}`);
  const agent = new Agent({ headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs, connect: { timeout: o.timeoutMs, ...(o.allowPrivate ? {} : { lookup: guardedLookup }) } });
  try {
    const res = await request(target, { method: 'GET', dispatcher: agent, signal: AbortSignal.timeout(o.timeoutMs) });
    if (res.statusCode < 200 || res.statusCode > 299) {
      res.body.destroy();
      throw new RemoteMediaError(`url: the address answered HTTP ${res.statusCode}`);
    }
    const declared = Number(res.headers['content-length']);
    if (declared > o.maxBytes) {
      res.body.destroy();
      throw new RemoteMediaError(`url: the media is ${declared} bytes, over the limit of ${o.maxBytes}`);
    }
    const body = new PassThrough();
    res.body.on('error', (err) => body.destroy(remoteError(err, o.timeoutMs)));
    res.body.pipe(body);
    // The connection goes with the body, however it ends (read whole, failed, or dropped by the caller).
    body.on('close', () => {
      res.body.destroy();
      void agent.close();
    });
    return body;
  } catch (err) {
    void agent.close();
    throw remoteError(err, o.timeoutMs);
  }
}
