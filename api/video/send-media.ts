import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import parseRange from 'range-parser';
import { HttpError } from '../http/errors.js';

type Open = (range?: { start: number; end: number }) => Promise<{ body: Readable; sizeBytes: number; contentType?: string } | null>;

/**
 * Answers a stored media object with HTTP range support (RFC 9110): one `bytes=` range answers 206
 * with Content-Range, an unsatisfiable one 416, none (or several) the whole object.
 */
export async function sendMedia(req: Request, res: Response, size: number, contentType: string, open: Open, notThere: () => HttpError): Promise<void> {
  const header = req.get('range');
  const ranges = header ? parseRange(size, header, { combine: true }) : undefined;
  if (ranges === -1) {
    res.set('Content-Range', `bytes */${size}`);
    throw new HttpError(416, 'range_not_satisfiable', `the range ${header} lies outside the ${size} bytes of the file`);
  }
  const one = Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1 ? ranges[0] : undefined;
  const found = await open(one);
  if (!found) throw notThere();
  res.set({ 'Accept-Ranges': 'bytes', 'Content-Type': contentType, 'Cache-Control': 'private, max-age=3600' });
  if (one) {
    res.status(206).set({ 'Content-Range': `bytes ${one.start}-${one.end}/${size}`, 'Content-Length': String(one.end - one.start + 1) });
  } else {
    res.status(200).set('Content-Length', String(size));
  }
  if (req.method === 'HEAD') {
    found.body.destroy();
    res.end();
    return;
  }
  await pipeline(found.body, res);
}
