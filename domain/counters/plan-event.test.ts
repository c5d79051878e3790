import { describe, expect, it } from 'vitest';
import { compileConfig, retiredAfter } from './compile.js';
import { checkEvent } from './check-event.js';
import { crossesThreshold, planEvent } from './plan-event.js';
import { liveReads, liveValues } from './live-values.js';
import { sampleConfig } from '../../test/fixtures/counters-config.js';
import type { CounterConfig, CounterEvent } from '../../schemas/http/counters.js';

const now = Date.parse('2025-03-01T14:05:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const ev = (fields: Partial<CounterEvent> = {}): CounterEvent => ({ event_id: 'e1', entity_id: 'u1', event_type: 'login', occurred_at: iso(now), ...fields });
const compiled = (edit: (c: CounterConfig) => void = () => {}) => {
  const c = sampleConfig();
  edit(c);
  return compileConfig('org_a', c, []);
};

describe('checkEvent', () => {
  const cc = compiled();
  it('accepts an event up to 5 minutes ahead and rejects one beyond', () => {
    expect(checkEvent(cc, ev({ occurred_at: iso(now + 300_000) }), now)).toBeNull();
    expect(checkEvent(cc, ev({ occurred_at: iso(now + 300_001) }), now)).toMatch(/more than 5 minutes in the future/);
  });
  it('rejects undeclared attributes, also when no configuration exists', () => {
    expect(checkEvent(cc, ev({ attributes: { channel: 'web' } }), now)).toBeNull();
    expect(checkEvent(cc, ev({ attributes: { device: 'x' } }), now)).toBe('attributes.device: attribute device is not declared in the counter configuration');
    expect(checkEvent(null, ev({ attributes: { channel: 'web' } }), now)).toMatch(/not declared/);
    expect(checkEvent(null, ev(), now)).toBeNull();
  });
  it('requires a value when a sum counter takes the event', () => {
    expect(checkEvent(cc, ev({ event_type: 'deposit' }), now)).toBe('value: a number is required; sum counter deposits_7d adds it');
    expect(checkEvent(cc, ev({ event_type: 'deposit', value: 12.5 }), now)).toBeNull();
    // An inactive sum counter does not take it.
    expect(checkEvent(compiled((c) => (c.counters[2]!.active = false)), ev({ event_type: 'deposit' }), now)).toBeNull();
  });
});

describe('planEvent', () => {
  it('counts, sums and records last_seen for matching active counters only', () => {
    const cc = compiled();
    const login = planEvent(cc, ev(), now);
    expect(login.updates).toEqual([
      { kind: 'sum', series: cc.counters[0]!.series, bucket: Math.floor(now / 1000), delta: 1, floor: Math.floor((now - 3_600_000) / 1000) + 1 },
      { kind: 'max', series: cc.counters[3]!.series, value: now },
    ]);
    expect(login.expiresAt).toBe(now + 3_600_000);
    expect(planEvent(cc, ev({ event_type: 'deposit', value: 7 }), now).updates).toMatchObject([{ kind: 'sum', delta: 7, bucket: Math.floor(now / 60_000) }]);
    expect(planEvent(cc, ev({ event_type: 'other' }), now).updates).toEqual([]);
  });

  it('applies attribute filters', () => {
    const cc = compiled();
    expect(planEvent(cc, ev({ event_type: 'login_failed', attributes: { channel: 'app' } }), now).updates).toEqual([]);
    const web = planEvent(cc, ev({ event_type: 'login_failed', attributes: { channel: 'web', country: 'NG' } }), now);
    expect(web.updates).toHaveLength(1);
    expect(web.watched).toEqual([{ series: cc.counters[1]!.series, delta: 1, thresholds: [5], floor: Math.floor((now - 86_400_000) / 1000) + 1 }]);
  });

  it('puts a late event in its own bucket and ignores one older than the window', () => {
    const cc = compiled();
    const late = planEvent(cc, ev({ occurred_at: iso(now - 1_800_000) }), now);
    expect(late.updates[0]).toMatchObject({ bucket: Math.floor((now - 1_800_000) / 1000) });
    expect(late.expiresAt).toBe(now + 1_800_000);
    const old = planEvent(cc, ev({ occurred_at: iso(now - 3_600_000) }), now);
    expect(old.updates).toEqual([{ kind: 'max', series: cc.counters[3]!.series, value: now - 3_600_000 }]);
    expect(old.expiresAt).toBeNull();
  });

  it('answers the first instant at which the event leaves one of its windows', () => {
    const cc = compiled((c) => c.counters.push({ name: 'logins_30m', event_type: 'login', aggregate: 'count', window: { amount: 30, unit: 'minutes' }, attribute_filters: {}, alert_thresholds: [], active: true }));
    const plan = planEvent(cc, ev({ occurred_at: iso(now - 600_000) }), now);
    expect(plan.updates.map((u) => u.kind)).toEqual(['sum', 'max', 'sum']);
    expect(plan.expiresAt).toBe(now + 1_200_000);
    // Given the parsed instant, the event's text is not read again.
    expect(planEvent(cc, ev({ occurred_at: 'not read' }), now, now - 600_000)).toEqual(plan);
  });

  it('counts nothing for inactive counters or a disabled configuration', () => {
    expect(planEvent(compiled((c) => (c.counters[0]!.active = false)), ev(), now).updates.map((u) => u.kind)).toEqual(['max']);
    expect(planEvent(compiled((c) => (c.enabled = false)), ev(), now).updates).toEqual([]);
  });

  it('keeps the series when only the window length changes and renews it when the meaning changes', () => {
    const base = compiled().counters[0]!.series;
    expect(compiled((c) => (c.counters[0]!.window = { amount: 2, unit: 'hours' })).counters[0]!.series).toBe(base);
    expect(compiled((c) => (c.counters[0]!.event_type = 'signin')).counters[0]!.series).not.toBe(base);
    expect(compiled((c) => (c.counters[0]!.window = { amount: 2, unit: 'days' })).counters[0]!.series).not.toBe(base);
  });
});

describe('thresholds, retirement, live values', () => {
  it('detects a crossing in either direction, reaching the value included', () => {
    expect(crossesThreshold(4, 5, [5])).toBe(true);
    expect(crossesThreshold(5, 6, [5])).toBe(false);
    expect(crossesThreshold(6, 4, [5])).toBe(true);
    expect(crossesThreshold(1, 2, [5, 10])).toBe(false);
  });

  it('retires counters that leave the configuration and revives returning ones', () => {
    const v1 = sampleConfig(1);
    const v2 = sampleConfig(2);
    v2.counters = v2.counters.filter((c) => c.name !== 'logins_1h');
    const r2 = retiredAfter({ config: v1, retired: [] }, v2);
    expect(r2).toEqual([{ name: 'logins_1h', type: 'number' }]);
    expect(retiredAfter({ config: v2, retired: r2 }, sampleConfig(3))).toEqual([]);
    expect(retiredAfter({ config: v2, retired: r2 }, { ...sampleConfig(3), table_name: 'other' })).toEqual([]);
  });

  it('formats store answers as counter values', () => {
    const cc = compiled();
    expect(liveReads(cc, now)).toHaveLength(4);
    expect(liveValues(cc, [3, null, 12.5, now])).toEqual({ logins_1h: 3, failed_web_logins_24h: 0, deposits_7d: 12.5, last_login: iso(now) });
    expect(liveValues(cc, [0, 0, 0, null]).last_login).toBeNull();
  });
});
