import type { Request, Response } from 'express';
import multer from 'multer';
import { z } from 'zod';
import type { ThemeName } from '../../domain/video/themes.js';
import { MAX_SOURCE_CHARS, renderSourceRequestSchema } from '../../schemas/http/video.js';
import { HttpError, badRequest } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';

/**
 * Reads the one file of a multipart/form-data body (field `file`) into memory, refusing more than
 * `maxBytes` with 413 before the rest is read (for small files: sources stream, source-upload.ts).
 */
export async function readUpload(req: Request, res: Response, maxBytes: number): Promise<Express.Multer.File> {
  return (await readUploadFiles(req, res, maxBytes, [])).file;
}

/** Like readUpload, with optional further file fields `optional` (each at most one file of `maxBytes`). */
export async function readUploadFiles<K extends string>(req: Request, res: Response, maxBytes: number, optional: K[]): Promise<{ file: Express.Multer.File } & Partial<Record<K, Express.Multer.File>>> {
  return readMultipart(req, res, multer.memoryStorage(), maxBytes, optional);
}

/** A storage engine's own failure (the blob store, the disk): no fault of the body, so not a 4xx. */
export class UploadStoreError extends Error {}

/**
 * Reads a multipart/form-data body with `storage` taking the file parts (field `file`, and the
 * `optional` ones, one each, at most `maxBytes` each); errors of the body become 4xx naming why.
 */
export async function readMultipart<K extends string>(
  req: Request,
  res: Response,
  storage: multer.StorageEngine,
  maxBytes: number,
  optional: K[],
): Promise<{ file: Express.Multer.File } & Partial<Record<K, Express.Multer.File>>> {
  if (!req.is('multipart/form-data')) throw new HttpError(415, 'unsupported_media_type', 'send multipart/form-data with the file in the field `file`');
  const names = ['file', ...optional];
  const upload = multer({ storage, limits: { fileSize: maxBytes, files: names.length, fields: 10 } }).fields(names.map((name) => ({ name, maxCount: 1 })));
  await new Promise<void>((resolve, reject) =>
    upload(req, res, (err: unknown) => {
      if (!err) return resolve();
      if (err instanceof HttpError) return reject(err);
      if (err instanceof UploadStoreError) return reject(err.cause);
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return reject(new HttpError(413, 'payload_too_large', `the file ${JSON.stringify(err.field)} is larger than the limit of ${maxBytes} bytes`));
        return reject(badRequest(err.code === 'LIMIT_UNEXPECTED_FILE' ? `unexpected file field ${JSON.stringify(err.field)}; send the file in the field \`file\`${optional.length ? ` (optional: ${optional.join(', ')})` : ''}` : `malformed upload: ${err.message}`));
      }
      reject(badRequest(`malformed multipart body: ${(err as Error).message}`));
    }),
  );
  const files = (req.files ?? {}) as Record<string, Express.Multer.File[] | undefined>;
  const file = files.file?.[0];
  if (!file) throw badRequest('no file: send it in the multipart field `file`');
  const found: Partial<Record<K, Express.Multer.File>> = {};
  for (const name of optional) if (files[name]?.[0]) found[name] = files[name][0];
  return { file, ...found };
}

/** Bytes a script file may have: its character limit at four UTF-8 bytes each. */
export const SCRIPT_FILE_MAX_BYTES = Math.ceil(MAX_SOURCE_CHARS * 4);

export const SCRIPT_FILE_DESCRIPTION = `multipart/form-data with the script (UTF-8 text) in the field \`file\`, at most ${SCRIPT_FILE_MAX_BYTES} bytes; optional fields theme and preview (true/false).`;

const scriptFileFields = renderSourceRequestSchema.pick({ theme: true }).extend({ preview: z.enum(['true', 'false']).optional() });

/** An uploaded script file (POST /api/compile/file and /api/render/file) and its form fields. */
export async function readScriptFile(req: Request, res: Response): Promise<{ source: string; theme?: ThemeName; preview: boolean }> {
  const file = await readUpload(req, res, SCRIPT_FILE_MAX_BYTES);
  const source = file.buffer.toString('utf8');
  if (source.includes('\uFFFD') || source.trim() === '') throw badRequest('the file is not a UTF-8 script');
  const fields = parseOr400(scriptFileFields, req.body ?? {}, 'form fields');
  return { source, theme: fields.theme, preview: fields.preview === 'true' };
}
