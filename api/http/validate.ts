import type { ZodType, z } from 'zod';
import { describeZodError } from '../../schemas/zod-error.js';
import { HttpError } from './errors.js';

/** Parses `value` with `schema`; a failure is a 400 naming every bad field. */
export function parseOr400<S extends ZodType>(schema: S, value: unknown, what = 'request body'): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new HttpError(400, 'validation_error', `invalid ${what}: ${describeZodError(r.error)}`, {}, r.error.issues);
}
