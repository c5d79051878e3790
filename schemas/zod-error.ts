import type { ZodError } from 'zod';

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
