/**
 * Bounds of the fan-out, so one request cannot make an unbounded amount of delivery work: one
 * event's payload (each registration gets a job carrying it), and each registration's
 * auto_payload (merged into every payload it is sent). The limits come from the configuration.
 */

export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** What is wrong with a value of `what` over `limit` bytes as JSON, naming the variable that sets it; null when it fits. */
export function overLimit(value: unknown, what: string, limit: number, variable: string): string | null {
  const size = jsonBytes(value);
  return size > limit ? `${what} is ${size} bytes as JSON, over the limit of ${limit} bytes (${variable})` : null;
}
