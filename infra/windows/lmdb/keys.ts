/**
 * Key layout (lmdb's ordered keys: arrays compare element by element, numbers numerically):
 *   ['e', scope, id]                          entity: touched-at, sum series, maxima (entity-record.ts)
 *   ['j', scope, slotMs, span, digest]        event id (ids.ts): its slot * 2 + 0 reserved, 1 applied
 *   ['n', scope, slotMs, span]                an id span's latest expiry, for housekeeping
 *   ['i', scope, slotMs, slot, digest]        event id of the earlier layout: 0 reserved, 1 applied
 *   ['m', scope, slotMs, slot]                an earlier-layout id slot's latest expiry
 *   ['q', scope, queue, dueAt, id] + ['Q', scope, queue, id] -> dueAt   due queues, earliest first
 *   ['c', scope, namespace, id]               short lease, valued its expiry
 *   ['v', scope, namespace, id]               opaque value (putValues)
 *   ['h', scope, namespace, id]               hold: {h holder, t token, e expiry}
 */
export const KEYSPACES = { entity: 'e', id: 'j', idSpan: 'n', legacyId: 'i', legacyIdSlot: 'm', due: 'q', queued: 'Q', lease: 'c', value: 'v', hold: 'h' } as const;
