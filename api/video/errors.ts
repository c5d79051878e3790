import { videoErrorSchema } from '../../schemas/http/video.js';
import type { Diagnostic } from '../../domain/video/diagnostics.js';
import type { SubmitRejection } from '../../pipelines/video/ports.js';
import { badRequest, HttpError, notFound } from '../http/errors.js';

/** Error responses and errors shared by the video service's route modules. */

export const error = (description: string) => ({ description, schema: videoErrorSchema });
export const authErrors = { 401: error('Missing or unknown credential') };

export const badCursor = () => badRequest('cursor: not a cursor this service answered; pass nextCursor of the previous page');

export function compileFailed(diagnostics: Diagnostic[]): HttpError {
  const count = diagnostics.filter((d) => d.level === 'error').length;
  const first = diagnostics.find((d) => d.level === 'error')!;
  const message = `the script has ${count} error${count === 1 ? '' : 's'}; the first, at line ${first.line} column ${first.column}: ${first.message}`;
  return new HttpError(400, 'compile_failed', message, { diagnostics });
}

/** A render the service would not queue, as the HTTP error that says why. */
export function rejected(r: SubmitRejection): HttpError {
  switch (r.kind) {
    case 'compile_failed':
      return compileFailed(r.diagnostics);
    case 'template_not_found':
      return notFound(`the organization has no template ${JSON.stringify(r.name)}; GET /api/templates lists them`);
    case 'invalid_variables':
      return new HttpError(400, 'invalid_variables', `template variables: ${r.issues.map((i) => `${i.variable} ${i.message}`).join('; ')}`, { issues: r.issues });
    case 'over_bound':
      return new HttpError(r.breach.status, r.breach.status === 429 ? 'render_quota' : 'render_too_large', r.breach.message, { limit: r.breach.limit });
  }
}
