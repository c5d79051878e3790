import type { Request, Response } from 'express';
import type multer from 'multer';
import { MediaTooLargeError } from '../../pipelines/video/media-gate.js';
import { UnreadableMediaError } from '../../pipelines/video/probe.js';
import { UnsupportedSourceError, type SourceStore, type StoredMedia } from '../../pipelines/video/sources.js';
import { HttpError } from '../http/errors.js';
import { UploadStoreError, readMultipart } from './upload.js';

/** Bytes of a sidecar subtitle file: held in memory, and hours of cues are far less. */
export const SUBTITLES_MAX_BYTES = 8 * 1024 * 1024;

export interface SourceUpload {
  /** The media as stored under the source id, with the name the client gave it. */
  media: StoredMedia & { originalname: string };
  subtitles?: Buffer;
}

const tooLarge = (what: string, max: number) => new HttpError(413, 'payload_too_large', `${what} is larger than the limit of ${max} bytes`);
const fileField = (name: string) => `the file ${JSON.stringify(name)}`;

/**
 * storeMedia's refusals as HTTP, naming why: 415 for media of no accepted type or that ffprobe
 * cannot read, 413 past the limit (`what` names the media: "the asset"); undefined for any other error.
 */
export function mediaRefusal(err: unknown, what: string): HttpError | undefined {
  if (err instanceof UnreadableMediaError) return new HttpError(415, 'unreadable_media', `ffprobe cannot read the media: ${err.message}`);
  if (err instanceof UnsupportedSourceError) return new HttpError(415, 'unsupported_media_type', err.message);
  if (err instanceof MediaTooLargeError) return tooLarge(what, err.maxBytes);
  return undefined;
}

/**
 * Multer storage for a source upload: the media part streams straight to the blob store under the
 * source id (sniffed from its first bytes, its size enforced while it streams); the subtitles part,
 * small, is held in memory. A part the upload then refuses is removed again.
 */
function sourceStorage(sources: SourceStore, id: string, maxBytes: number): multer.StorageEngine {
  return {
    _handleFile(_req, file, cb) {
      const body = file.stream;
      if (file.fieldname !== 'file') {
        const parts: Buffer[] = [];
        let size = 0;
        let answered = false;
        const answer: typeof cb = (err, info) => void (answered || ((answered = true), cb(err, info)));
        // Past the limit the rest is read and dropped: the refusal goes out at once.
        body.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= SUBTITLES_MAX_BYTES) parts.push(c);
          else answer(tooLarge(fileField(file.fieldname), SUBTITLES_MAX_BYTES));
        });
        body.once('error', (err) => answer(err));
        body.once('end', () => answer(null, { buffer: Buffer.concat(parts), size }));
        return;
      }
      // An error of the body itself (a cut-off part) is the client's; anything else of storing is ours.
      let bodyFailed = false;
      body.once('error', () => (bodyFailed = true));
      sources.storeMedia(id, file.originalname, body, maxBytes).then(
        (media) => cb(null, { mimetype: media.mimetype, size: media.sizeBytes, stored: media } as Partial<Express.Multer.File>),
        (err: unknown) => cb(mediaRefusal(err, fileField(file.fieldname)) ?? (bodyFailed ? (err as Error) : new UploadStoreError('the media could not be stored', { cause: err }))),
      );
    },
    _removeFile(_req, file, cb) {
      if (file.fieldname !== 'file') return cb(null);
      sources.discardMedia(id).then(() => cb(null), cb);
    },
  };
}

/**
 * Reads POST /api/sources/upload: the media (field `file`) stored under `id` as it arrives, the
 * optional `subtitles` in memory, the text fields in `req.body`. The caller discards the media
 * when it refuses the upload after this returns.
 */
export async function readSourceUpload(req: Request, res: Response, sources: SourceStore, id: string, maxBytes: number): Promise<SourceUpload> {
  const files = await readMultipart(req, res, sourceStorage(sources, id, maxBytes), maxBytes, ['subtitles']);
  return {
    media: { ...(files.file as Express.Multer.File & { stored: StoredMedia }).stored, originalname: files.file.originalname },
    ...(files.subtitles ? { subtitles: files.subtitles.buffer } : {}),
  };
}
