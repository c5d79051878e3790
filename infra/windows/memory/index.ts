import type { IdState, WindowStore } from '../types.js';
import { down, up } from '../../health.js';
import { WindowState } from './state.js';
import { DEFAULT_IDLE_TTL_MS, checkApply, checkFinite, checkReads, checkPositive } from '../validate.js';

export interface MemoryWindowStoreOptions {
  /** An entity without updates for this long is forgotten (default 100 days). */
  idleTtlMs?: number;
}

/**
 * The window store in plain process memory, for tests and benchmarks that need no durability.
 * The embedded default of `npm start` is the LMDB store (../lmdb), which keeps the same state on
 * disk.
 */
export async function createMemoryWindowStore(opts: MemoryWindowStoreOptions = {}): Promise<WindowStore> {
  const idleTtlMs = opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS;
  checkPositive('idleTtlMs', idleTtlMs);
  const state = new WindowState({ idleTtlMs });
  let stopped: Error | undefined;

  const usable = (): void => {
    if (stopped) throw stopped;
  };

  return {
    kind: 'memory',
    async apply(requests) {
      usable();
      checkApply(requests);
      return state.apply(requests, Date.now());
    },
    async read(entity, reads) {
      usable();
      checkReads(reads);
      return state.read(entity, reads, Date.now());
    },
    async readMany(items) {
      usable();
      for (const i of items) checkReads(i.reads);
      const now = Date.now();
      return items.map((i) => state.read(i.entity, i.reads, now));
    },
    async reserveIds(scope, ids, ttlMs) {
      usable();
      checkPositive('reserveIds ttlMs', ttlMs);
      return state.reserveIds(scope, ids, ttlMs, Date.now()) as IdState[];
    },
    async unreserveIds(scope, ids, ttlMs) {
      usable();
      checkPositive('unreserveIds ttlMs', ttlMs);
      state.unreserveIds(scope, ids);
    },
    async claim(scope, namespace, ids, ttlMs) {
      usable();
      checkPositive('claim ttlMs', ttlMs);
      return state.claim(scope, namespace, ids, ttlMs, Date.now());
    },
    // Nothing here is durable: every write is as durable as it gets when it resolves.
    async synced() {},
    async release(scope, namespace, ids) {
      usable();
      state.release(scope, namespace, ids);
    },
    async hold(scope, namespace, id, request) {
      usable();
      checkPositive('hold ttlMs', request.ttlMs);
      return state.hold(scope, namespace, id, request, Date.now());
    },
    async readHold(scope, namespace, id) {
      usable();
      return state.readHold(scope, namespace, id, Date.now());
    },
    async dropHold(scope, namespace, id, holder) {
      usable();
      return state.dropHold(scope, namespace, id, holder, Date.now());
    },
    async schedule(scope, queue, entries) {
      usable();
      for (const e of entries) checkFinite('schedule dueAt', e.dueAt);
      state.schedule(scope, queue, entries);
    },
    async takeDue(scope, queue, now, limit, lease) {
      usable();
      checkPositive('takeDue limit', limit);
      if (lease) checkFinite('lease dueAt', lease.dueAt);
      return state.takeDue(scope, queue, now, limit, lease);
    },
    async unschedule(scope, queue, ids) {
      usable();
      state.unschedule(scope, queue, ids);
    },
    async putValues(scope, namespace, entries) {
      usable();
      state.putValues(scope, namespace, entries);
    },
    async getValues(scope, namespace, ids) {
      usable();
      return state.getValues(scope, namespace, ids);
    },
    async deleteValues(scope, namespace, ids) {
      usable();
      state.deleteValues(scope, namespace, ids);
    },
    async deleteEntity(entity) {
      usable();
      state.deleteEntity(entity);
    },
    health() {
      return stopped ? down(stopped.message) : up;
    },
    async close() {
      stopped ??= new Error('window store closed');
    },
  };
}
