/**
 * A dependency (Redis, say) did not answer in time or could not be reached. It is retriable: the
 * edge answers 503 with Retry-After, and the cause, which may name hosts and ports, goes to the
 * log only.
 */
export class UnavailableError extends Error {
  readonly retriable = true;

  constructor(what: string, cause: unknown) {
    super(`${what} is unreachable; retry shortly`, { cause });
    this.name = 'UnavailableError';
  }
}
