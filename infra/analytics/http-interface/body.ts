import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import { ownError } from './errors.js';

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * The request body, decompressed as its Content-Encoding says (the client's `compression.request`),
 * refused once it passes `limit` bytes after decompression.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  let source: AsyncIterable<Buffer> = req;
  if (encoding !== 'identity') {
    const decoder = DECODERS[encoding];
    if (!decoder) throw ownError(89, 'UNKNOWN_COMPRESSION_METHOD', `Unknown HTTP Content-Encoding '${encoding}': use gzip, deflate or br`);
    source = req.pipe(decoder());
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      size += chunk.length;
      if (size > limit) throw ownError(229, 'QUERY_IS_TOO_LARGE', `Request body is larger than ${limit} bytes`);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof Error && 'code' in err && typeof (err as { code: unknown }).code === 'string' && String((err as { code: string }).code).startsWith('Z_')) {
      throw ownError(36, 'BAD_ARGUMENTS', `Request body is not valid ${encoding}`);
    }
    throw err;
  }
  return Buffer.concat(chunks);
}
