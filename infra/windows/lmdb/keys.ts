/**
 * Key layout (lmdb's ordered keys: arrays compare element by element, numbers numerically):
 *   ['e', scope, id]                          entity: touched-at, sum series, maxima (entity-record.ts)
 *   ['i', scope, slotMs, slot, digest]        event id (event-ids.ts grid): 0 reserved, 1 applied
 *   ['m', scope, slotMs, slot]                an id slot's latest expiry, for housekeeping
 *   ['q', scope, queue, dueAt, id] + ['Q', scope, queue, id] -> dueAt   due queues, earliest first
 *   ['c', scope, namespace, id]               short lease, valued its expiry
 *   ['v', scope, namespace, id]               opaque value (putValues)
 *   ['h', scope, namespace, id]               hold: {h holder, t token, e expiry}
 */
export const KEYSPACES = { entity: 'e', id: 'i', idSlot: 'm', due: 'q', queued: 'Q', lease: 'c', value: 'v', hold: 'h' } as const;
