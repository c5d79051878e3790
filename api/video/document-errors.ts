import { DocumentRefusal, type RefusalKind } from '../../pipelines/video/documents.js';
import { HttpError } from '../http/errors.js';

/** Refusals of the document service as the HTTP errors that say why (docs/video-documents.md). */

const STATUS: Record<RefusalKind, [number, string]> = {
  not_found: [404, 'not_found'],
  precondition_failed: [412, 'precondition_failed'],
  locked: [423, 'locked'],
  lock_held: [409, 'lock_held'],
  busy: [409, 'busy'],
  compile_failed: [422, 'compile_failed'],
  invalid_edit: [400, 'invalid_edit'],
  test_failed: [409, 'test_failed'],
  invalid_anchor: [400, 'invalid_anchor'],
  too_many_annotations: [409, 'too_many_annotations'],
};

export function refusalToHttp(r: DocumentRefusal): HttpError {
  const [status, code] = STATUS[r.kind];
  return new HttpError(status, code, r.message, { ...r.extra, ...(r.diagnostics ? { diagnostics: r.diagnostics } : {}) });
}

/** Runs a document call, its refusal turned into the HttpError of the same meaning. */
export async function refusing<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw err instanceof DocumentRefusal ? refusalToHttp(err) : err;
  }
}
