import type { ZodError, ZodType, z } from 'zod';
import { HttpError } from './errors.js';

/** `events[3].occurred_at: must be an RFC 3339 timestamp` — where, then what. */
export function describeZodError(err: ZodError): string {
  return err.issues
    .slice(0, 10)
    .map((i) => {
      const where = i.path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
      return where ? `${where}: ${i.message}` : i.message;
    })
    .join('; ');
}

/** Parses `value` with `schema`; a failure is a 400 naming every bad field. */
export function parseOr400<S extends ZodType>(schema: S, value: unknown, what = 'request body'): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new HttpError(400, 'validation_error', `invalid ${what}: ${describeZodError(r.error)}`, {}, r.error.issues);
}
