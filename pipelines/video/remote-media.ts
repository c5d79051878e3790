import { Agent, request } from 'undici';
import { DestinationRefused, guardedLookup, refusedLiteral } from '../webhooks/sender.js';

/**
 * Fetches a source's media from a user's address with the webhooks' outbound safety: unless
 * private targets are allowed, a literal or resolved loopback, private or link-local address is
 * refused at connect time; one deadline over the whole transfer, no redirects, at most `maxBytes`.
 */

export class RemoteMediaError extends Error {}

export async function fetchRemoteMedia(url: string, o: { timeoutMs: number; maxBytes: number; allowPrivate: boolean }): Promise<Buffer> {
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
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > o.maxBytes) {
        res.body.destroy();
        throw new RemoteMediaError(`url: the media is over the limit of ${o.maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  } catch (err) {
    if (err instanceof RemoteMediaError) throw err;
    const e = err as Error & { cause?: unknown };
    if (e instanceof DestinationRefused || e.cause instanceof DestinationRefused) throw new RemoteMediaError(`url: ${(e instanceof DestinationRefused ? e : (e.cause as Error)).message}`);
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new RemoteMediaError(`url: no complete answer within ${o.timeoutMs} ms`);
    throw new RemoteMediaError(`url: the fetch failed (${(e as { code?: string }).code ?? e.name})`);
  } finally {
    void agent.close();
  }
}
