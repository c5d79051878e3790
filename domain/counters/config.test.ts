import { describe, expect, it } from 'vitest';
import { counterConfigBodySchema } from '../../schemas/http/counters.js';
import { describeZodError } from '../../schemas/zod-error.js';
import { sampleConfigBody } from '../../test/fixtures/counters-config.js';

type Body = ReturnType<typeof sampleConfigBody>;
const problem = (edit: (b: Body) => void): string | null => {
  const body = sampleConfigBody();
  edit(body);
  const r = counterConfigBodySchema.safeParse(body);
  return r.success ? null : describeZodError(r.error);
};

describe('counter configuration validation', () => {
  it('accepts the sample and fills defaults', () => {
    expect(problem(() => {})).toBeNull();
    const parsed = counterConfigBodySchema.parse({ counters: [{ name: 'n', event_type: 'e', aggregate: 'count', window: { amount: 1, unit: 'hours' } }] });
    expect(parsed).toMatchObject({ enabled: true, table_name: 'entity_counters', flush_interval_seconds: 60, attributes: [] });
    expect(parsed.counters[0]).toMatchObject({ active: true, attribute_filters: {}, alert_thresholds: [] });
  });

  it.each([
    ['an upper-case name', (b: Body) => (b.counters[0]!.name = 'Logins'), 'counters[0].name: must be lowercase letters, digits and underscores'],
    ['a dash in a name', (b: Body) => (b.counters[0]!.name = 'log-ins'), 'counters[0].name'],
    ['a name used twice', (b: Body) => (b.counters[1]!.name = 'logins_1h'), 'counters[1].name: counter name logins_1h is used twice'],
    ['a reserved name', (b: Body) => (b.counters[0]!.name = 'entity_id'), 'counters[0].name: entity_id is a reserved column'],
    ['an unknown aggregate', (b: Body) => ((b.counters[0] as { aggregate: string }).aggregate = 'avg'), 'counters[0].aggregate'],
    ['a count without window', (b: Body) => delete b.counters[0]!.window, 'counters[0].window: is required for a count counter'],
    ['a sum without window', (b: Body) => delete b.counters[2]!.window, 'counters[2].window: is required for a sum counter'],
    ['a window over 90 days', (b: Body) => (b.counters[2]!.window = { amount: 91, unit: 'days' }), 'counters[2].window: must be at most 90 days'],
    ['a window of 2161 hours', (b: Body) => (b.counters[0]!.window = { amount: 2161, unit: 'hours' }), 'must be at most 90 days'],
    ['a zero window', (b: Body) => (b.counters[0]!.window = { amount: 0, unit: 'hours' }), 'counters[0].window.amount'],
    ['an unknown unit', (b: Body) => ((b.counters[0]!.window as { unit: string }).unit = 'weeks'), 'counters[0].window.unit'],
    ['a filter on an undeclared attribute', (b: Body) => (b.counters[0]!.attribute_filters = { device: 'x' }), 'counters[0].attribute_filters.device: filters on attribute device, which is not declared'],
    ['an attribute declared twice', (b: Body) => b.attributes.push({ name: 'channel', type: 'text' }), 'attributes[2].name: attribute channel is declared twice'],
    ['a non-text attribute', (b: Body) => ((b.attributes[0] as { type: string }).type = 'number'), 'attributes[0].type'],
    ['a flush interval of 0', (b: Body) => (b.flush_interval_seconds = 0), 'flush_interval_seconds'],
    ['a fractional flush interval', (b: Body) => (b.flush_interval_seconds = 1.5), 'flush_interval_seconds'],
    ['a bad table name', (b: Body) => (b.table_name = 'x; DROP TABLE y'), 'table_name'],
    ['thresholds on last_seen', (b: Body) => (b.counters[3]!.alert_thresholds = [1]), 'counters[3].alert_thresholds: apply to count and sum counters only'],
    ['an unknown field', (b: Body) => ((b as Record<string, unknown>).colour = 'red'), 'colour'],
  ])('rejects %s', (_what, edit, message) => {
    expect(problem(edit)).toContain(message);
  });

  it('accepts and ignores a window on last_seen', () => {
    expect(problem((b) => (b.counters[3]!.window = { amount: 1, unit: 'hours' }))).toBeNull();
  });
});
