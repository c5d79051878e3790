import type { RedisOptions } from 'ioredis';
import type { WindowStore } from '../types.js';
import { UnavailableError } from '../../unavailable.js';

/**
 * Client options that make an outage fail fast instead of hanging requests: a command waits at
 * most `commandTimeoutMs` for its answer (a server that accepts but never answers), and a
 * command issued while the connection is down is given up after one reconnection attempt
 * (ioredis's default, 20, keeps a request waiting for about ten seconds).
 */
export const outageOptions = (commandTimeoutMs: number): RedisOptions => ({ commandTimeout: commandTimeoutMs, maxRetriesPerRequest: 1 });

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** A Redis Cluster that is unreachable, has lost a master, or keeps redirecting (ioredis's Cluster client). */
const CLUSTER_OUTAGE = /^(Cluster isn't ready|Too many Cluster redirections|Failed to refresh slots cache|CLUSTERDOWN)/;

/** ioredis's ways of saying the server did not answer, as opposed to a reply error of a command. */
export function isOutage(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return (
    err.name === 'MaxRetriesPerRequestError' ||
    err.message === 'Command timed out' ||
    err.message === 'Connection is closed.' ||
    CLUSTER_OUTAGE.test(err.message) ||
    (typeof code === 'string' && CONNECTION_CODES.has(code))
  );
}

/** The store with every outage error turned into an UnavailableError (the edge answers it 503). */
export function failFastOnOutage(store: WindowStore): WindowStore {
  const guard = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    try {
      return await call(...args);
    } catch (err) {
      throw isOutage(err) ? new UnavailableError('the window store', err) : err;
    }
  };
  return {
    kind: store.kind,
    apply: guard(store.apply.bind(store)),
    read: guard(store.read.bind(store)),
    readMany: guard(store.readMany.bind(store)),
    claim: guard(store.claim.bind(store)),
    release: guard(store.release.bind(store)),
    hold: guard(store.hold.bind(store)),
    readHold: guard(store.readHold.bind(store)),
    dropHold: guard(store.dropHold.bind(store)),
    schedule: guard(store.schedule.bind(store)),
    takeDue: guard(store.takeDue.bind(store)),
    unschedule: guard(store.unschedule.bind(store)),
    putValues: guard(store.putValues.bind(store)),
    getValues: guard(store.getValues.bind(store)),
    deleteValues: guard(store.deleteValues.bind(store)),
    reserveIds: guard(store.reserveIds.bind(store)),
    unreserveIds: guard(store.unreserveIds.bind(store)),
    deleteEntity: guard(store.deleteEntity.bind(store)),
    synced: guard(store.synced.bind(store)),
    health: () => store.health(),
    close: () => store.close(),
  };
}
