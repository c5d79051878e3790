/** Marks an answer given again from what an earlier request with the same key or id stored (as Stripe does). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
