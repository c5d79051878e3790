import type { Outcome, RiskAction } from './actions.js';

/**
 * Risk webhook events (CONTRACTS.md section 5): risk.high for outcome block (and review when the
 * organization asks), risk.low for allow. They leave through a sink; the default one publishes to
 * the `workflow.events` topic, whose consumer (workflow webhooks) signs, retries and delivers them.
 */
export type RiskEventName = 'risk.high' | 'risk.low';

export interface RiskEventPayload {
  request_id: string;
  outcome: Outcome;
  score: number;
  reasons: string[];
  action: RiskAction;
  user_id: string | null;
  session_id: string | null;
  occurred_at: string;
}

export interface RiskEvent {
  org_id: string;
  event: RiskEventName;
  payload: RiskEventPayload;
}

export interface RiskEventSink {
  /** Resolves once the events are durably handed over. */
  emit(events: RiskEvent[]): Promise<void>;
}

export const WORKFLOW_EVENTS_TOPIC = 'workflow.events';

/** The event an outcome emits under an organization's choices, or null. */
export function eventFor(outcome: Outcome, opts: { reviewIsHigh: boolean; subscribed: readonly RiskEventName[] }): RiskEventName | null {
  const name: RiskEventName | null = outcome === 'block' || (outcome === 'review' && opts.reviewIsHigh) ? 'risk.high' : outcome === 'allow' ? 'risk.low' : null;
  return name && opts.subscribed.includes(name) ? name : null;
}

/**
 * The default sink: one `{org_id, event, payload}` message per event on `workflow.events`, keyed
 * by org_id (CONTRACTS.md 1b). `publish` is the bus, with the topic's codec.
 */
export function workflowEventSink(publish: (topic: string, messages: { key: string; value: RiskEvent }[]) => Promise<void>): RiskEventSink {
  return {
    async emit(events) {
      if (events.length === 0) return;
      await publish(
        WORKFLOW_EVENTS_TOPIC,
        events.map((e) => ({ key: e.org_id, value: e })),
      );
    },
  };
}
