import type { Platform } from '../../infra/platform.js';
import { eventSchema, type CounterEvent, type IngestionResult } from '../../schemas/http/counters.js';
import { checkEvent } from '../../domain/counters/check-event.js';
import { PerSecondLimit, QuotaExceededError } from '../../domain/quotas.js';
import { HttpError } from '../http/errors.js';
import { describeZodError } from '../http/validate.js';
import type { ConfigStore } from '../../pipelines/counters/config-store.js';
import { EVENTS_TOPIC } from '../../pipelines/counters/apply-events.js';
import { createEntityQuota } from './entity-quota.js';

/** Event ids remembered when the organization has no configuration yet (longest-window rule's floor). */
const NO_CONFIG_ID_TTL_MS = 25 * 3_600_000;

/**
 * HTTP intake of counter events: each item is validated on its own (shape, then the organization's
 * rules), repeats inside the request are duplicates, and the rest are appended to `events`.
 *
 * Ids are claimed only after the bus confirmed the append. Claiming first would let a crash between
 * claim and append orphan the claim, and the client's retry would then be told "duplicate" for an
 * event that never reached the log. Appending first means a retried id may be appended twice; the
 * pipeline applies each id once (window-store once-claim), so it still counts once, and the claim
 * result tells this request whether the id was new.
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

    const messages = await Promise.all(
      valid.map(async ({ event: e }) => ({ key: `${orgId}:${e.entity_id}`, value: await codec.encode(EVENTS_TOPIC, { ...e, org_id: orgId }) })),
    );
    await bus.send(EVENTS_TOPIC, messages);
    const claimed = await windows.claim(orgId, 'events', valid.map((v) => v.event.event_id), compiled?.eventIdTtlMs ?? NO_CONFIG_ID_TTL_MS);
    const accepted = claimed.filter(Boolean).length;
    return { accepted, duplicates: duplicates + claimed.length - accepted, rejected };
  };
}

export type Intake = ReturnType<typeof createIntake>;
