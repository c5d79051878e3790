import type { Request, Response } from 'express';
import multer from 'multer';
import { HttpError, badRequest } from '../http/errors.js';

/**
 * Reads the one file of a multipart/form-data body (field `file`) into memory, refusing more than
 * `maxBytes` with 413 before the rest is read.
 */
export async function readUpload(req: Request, res: Response, maxBytes: number): Promise<Express.Multer.File> {
  if (!req.is('multipart/form-data')) throw new HttpError(415, 'unsupported_media_type', 'send multipart/form-data with the file in the field `file`');
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: maxBytes, files: 1, fields: 10 } }).single('file');
  await new Promise<void>((resolve, reject) =>
    upload(req, res, (err: unknown) => {
      if (!err) return resolve();
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return reject(new HttpError(413, 'payload_too_large', `the file is larger than the limit of ${maxBytes} bytes`));
        return reject(badRequest(err.code === 'LIMIT_UNEXPECTED_FILE' ? `unexpected file field ${JSON.stringify(err.field)}; send the file in the field \`file\`` : `malformed upload: ${err.message}`));
      }
      reject(badRequest(`malformed multipart body: ${(err as Error).message}`));
    }),
  );
  if (!req.file) throw badRequest('no file: send it in the multipart field `file`');
  return req.file;
}
