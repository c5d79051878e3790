import type { Platform } from '../../infra/platform.js';
import { eventSchema, type CounterEvent, type IngestionResult } from '../../schemas/http/counters.js';
import { checkEvent } from '../../domain/counters/check-event.js';
import { PerSecondLimit, QuotaExceededError } from '../../domain/quotas.js';
import { HttpError } from '../http/errors.js';
import { describeZodError } from '../../schemas/zod-error.js';
import type { ConfigStore } from '../../pipelines/counters/config-store.js';
import { EVENTS_TOPIC } from '../../pipelines/counters/apply-events.js';
import { createEntityQuota } from './entity-quota.js';

/** Event ids are remembered this long when the organization has no configuration yet (the default event_id_window). */
const NO_CONFIG_ID_TTL_MS = 24 * 3_600_000;

/**
 * HTTP intake of counter events: each item is validated on its own (shape, then the organization's
 * rules), repeats inside the request are duplicates, and the rest are appended to `events`.
 *
 * One entry per event id, in the organization's id set that the pipeline's once check uses too
 * (WindowStore.reserveIds). Intake reserves the ids first: `new` ones are accepted, `reserved` and
 * `applied` ones are duplicates. It then appends the `new` and the `reserved` ones: a reservation
 * whose append never happened (a crash, a failed send) is appended by the retry that finds it, and
 * the pipeline applies an id that is reserved but not applied exactly once, so appending twice is
 * harmless. A failed append gives back the reservations this request made, best effort.
 */
export function createIntake(deps: { platform: Platform; configs: ConfigStore }) {
  const { bus, codec, windows, clock } = deps.platform;
  const rate = new PerSecondLimit(deps.platform.config.QUOTA_EVENTS_PER_SECOND_PER_ORG);
  const entities = createEntityQuota(windows, deps.platform.config.QUOTA_ENTITIES_PER_ORG);
  const entityLimit = new QuotaExceededError(entities.limit, 'entities', 'QUOTA_ENTITIES_PER_ORG').message;

  return async function ingest(orgId: string, items: unknown[]): Promise<IngestionResult> {
    const now = clock.now();
    const compiled = await deps.configs.get(orgId);
    const rejected: IngestionResult['rejected'] = [];
    let valid: { index: number; event: CounterEvent }[] = [];
    const seen = new Set<string>();
    let duplicates = 0;
    for (const [index, item] of items.entries()) {
      const parsed = eventSchema.safeParse(item);
      if (!parsed.success) {
        rejected.push({ index, reason: describeZodError(parsed.error) });
        continue;
      }
      const reason = checkEvent(compiled, parsed.data, now);
      if (reason) rejected.push({ index, reason });
      else if (seen.has(parsed.data.event_id)) duplicates++;
      else {
        seen.add(parsed.data.event_id);
        valid.push({ index, event: parsed.data });
      }
    }
    if (valid.length === 0) return { accepted: 0, duplicates, rejected };
    const waitMs = rate.admit(orgId, valid.length, now);
    if (waitMs > 0) {
      const message = new QuotaExceededError(rate.limit, 'events per second to one API process', 'QUOTA_EVENTS_PER_SECOND_PER_ORG').message;
      throw new HttpError(429, 'quota_exceeded', `${message}; nothing of this request was accepted`, { retry_after_seconds: Math.ceil(waitMs / 1000) });
    }
    const refused = await entities.refused(orgId, valid.map((v) => v.event.entity_id), now);
    if (refused.size > 0) {
      for (const v of valid) if (refused.has(v.event.entity_id)) rejected.push({ index: v.index, reason: `entity_id: ${entityLimit}` });
      rejected.sort((x, y) => x.index - y.index);
      valid = valid.filter((v) => !refused.has(v.event.entity_id));
      if (valid.length === 0) return { accepted: 0, duplicates, rejected };
    }

    const ttlMs = compiled?.eventIdTtlMs ?? NO_CONFIG_ID_TTL_MS;
    const states = await windows.reserveIds(orgId, valid.map((v) => v.event.event_id), ttlMs);
    const toAppend = valid.filter((_, i) => states[i] !== 'applied');
    const reserved = valid.filter((_, i) => states[i] === 'new').map((v) => v.event.event_id);
    if (toAppend.length > 0) {
      const messages = await Promise.all(
        toAppend.map(async ({ event: e }) => ({ key: `${orgId}:${e.entity_id}`, value: await codec.encode(EVENTS_TOPIC, { ...e, org_id: orgId }) })),
      );
      try {
        await bus.send(EVENTS_TOPIC, messages);
      } catch (err) {
        await windows.unreserveIds(orgId, reserved, ttlMs).catch(() => undefined);
        throw err;
      }
    }
    return { accepted: reserved.length, duplicates: duplicates + valid.length - reserved.length, rejected };
  };
}

export type Intake = ReturnType<typeof createIntake>;
