import { isDocumentEvent, type EventName } from './catalogue.js';

/** A registration's filter (Document 3: honored only for document events; CONTRACTS.md 7). */
export interface RegistrationFilter {
  tags?: string[];
  content_type?: string;
}

/**
 * Whether an event passes a registration's filter. Only document events are filtered: `tags`
 * match when the payload shares at least one tag, `content_type` when it is equal; both, when set,
 * must match. Other events ignore the filter.
 */
export function passesFilter(filter: RegistrationFilter | null | undefined, event: EventName, payload: Record<string, unknown>): boolean {
  if (!filter || !isDocumentEvent(event)) return true;
  if (filter.tags && filter.tags.length > 0) {
    const tags = Array.isArray(payload.tags) ? payload.tags : [];
    if (!filter.tags.some((t) => tags.includes(t))) return false;
  }
  if (filter.content_type !== undefined && payload.content_type !== filter.content_type) return false;
  return true;
}

/** What a target receives: the event's payload with the registration's auto_payload merged in; the event's own fields win. */
export const withAutoPayload = (payload: Record<string, unknown>, auto: Record<string, unknown> | null | undefined): Record<string, unknown> =>
  auto ? { ...auto, ...payload } : payload;
