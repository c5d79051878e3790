import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compiledTopicEventSchema, topicEventSchema } from '../schemas/http/counters.js';
import { describeZodError } from '../schemas/zod-error.js';

/**
 * The counter stage checks `events` messages with the zod-compiled schema (issue 31, the consumer's
 * CPU): it must accept, normalize and reject exactly as the runtime schema, with the same
 * dead-letter reason, whatever the message.
 */
const valid = { org_id: 'o', event_id: 'e-1', entity_id: 'u-1', event_type: 'txn', occurred_at: '2026-11-26T10:00:00.123Z', value: 12.5 };

/** What the stage makes of a message: the value it hands on, or the reason it dead-letters. */
function verdict(schema: typeof topicEventSchema, input: unknown): { ok: unknown } | { reason: string } {
  const parsed = schema.safeParse(input);
  return parsed.success ? { ok: parsed.data } : { reason: describeZodError(parsed.error) };
}

const cases: [string, unknown][] = [
  ['a JSON event', valid],
  ['no value (count events)', { ...valid, value: undefined }],
  ['Avro nulls', { ...valid, value: null, attributes: null }],
  ['attributes', { ...valid, attributes: { channel: 'web', country: 'NL' } }],
  ['an offset and no fraction', { ...valid, occurred_at: '2026-02-28T23:59:59+05:30' }],
  ['value at its bound', { ...valid, value: -1e15 }],
  ['an unknown key', { ...valid, amount: 3 }],
  ['no event_id', { ...valid, event_id: undefined }],
  ['an empty entity_id', { ...valid, entity_id: '' }],
  ['an event_id of 257 characters', { ...valid, event_id: 'x'.repeat(257) }],
  ['an event_type of 129 characters', { ...valid, event_type: 'x'.repeat(129) }],
  ['an empty org_id', { ...valid, org_id: '' }],
  ['occurred_at without seconds', { ...valid, occurred_at: '2026-11-26T10:00Z' }],
  ['occurred_at without a zone', { ...valid, occurred_at: '2026-11-26T10:00:00' }],
  ['occurred_at on 30 February', { ...valid, occurred_at: '2026-02-30T10:00:00Z' }],
  ['occurred_at as a number', { ...valid, occurred_at: 1764151200000 }],
  ['a value as a string', { ...valid, value: '12.5' }],
  ['a value past its bound', { ...valid, value: 1e16 }],
  ['an infinite value', { ...valid, value: Infinity }],
  ['NaN', { ...valid, value: NaN }],
  ['a numeric attribute', { ...valid, attributes: { channel: 1 } }],
  ['attributes as an array', { ...valid, attributes: ['web'] }],
  ['null', null],
  ['an array', [valid]],
  ['a string', 'event'],
];

describe('the compiled topic event schema', () => {
  it.each(cases)('treats %s as the runtime schema does', (_, input) => {
    expect(verdict(compiledTopicEventSchema, input)).toEqual(verdict(topicEventSchema, input));
  });

  it('hands on valid events with Avro nulls left out, as the runtime schema does', () => {
    const parsed = compiledTopicEventSchema.parse({ ...valid, value: null, attributes: null });
    expect(parsed).toEqual({ org_id: 'o', event_id: 'e-1', entity_id: 'u-1', event_type: 'txn', occurred_at: '2026-11-26T10:00:00.123Z' });
    expect(Object.keys(parsed)).toEqual(['event_id', 'entity_id', 'event_type', 'occurred_at', 'org_id']);
  });

  it('agrees with the runtime schema on generated messages, valid or not', () => {
    // Mostly valid fields, so that both the accepting and the rejecting paths are exercised.
    const odd = fc.oneof(fc.constant(''), fc.string({ minLength: 120, maxLength: 260 }), fc.constant('x'.repeat(256)), fc.integer(), fc.constant(null), fc.constant(undefined));
    const field = fc.oneof({ weight: 15, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) }, { weight: 1, arbitrary: odd });
    const instant = fc.oneof(
      { weight: 8, arbitrary: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()) },
      { weight: 2, arbitrary: fc.constantFrom('2026-11-26T10:00:00+01:00', '2026-11-26T10:00:00', '2026-11-26', '2026-13-01T00:00:00Z', '2024-02-29T00:00:00Z', '2023-02-29T00:00:00Z') },
      { weight: 1, arbitrary: odd },
    );
    const value = fc.oneof({ weight: 6, arbitrary: fc.double({ min: -1e15, max: 1e15, noNaN: true }) }, fc.double(), fc.constant(null), fc.constant(undefined), fc.string({ maxLength: 3 }));
    const attributes = fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof({ weight: 9, arbitrary: fc.string({ maxLength: 4 }) }, { weight: 1, arbitrary: fc.integer() })), fc.constant(null), fc.constant(undefined));
    const fields = { org_id: field, event_id: field, entity_id: field, event_type: field, occurred_at: instant, value, attributes };
    const message = fc.oneof(
      { weight: 9, arbitrary: fc.record(fields, { requiredKeys: ['org_id', 'event_id', 'entity_id', 'event_type', 'occurred_at'] }) },
      { weight: 1, arbitrary: fc.record({ ...fields, extra: field }) },
    );
    let accepted = 0;
    fc.assert(
      fc.property(message, (input) => {
        const runtime = verdict(topicEventSchema, input);
        expect(verdict(compiledTopicEventSchema, input)).toEqual(runtime);
        if ('ok' in runtime) accepted++;
      }),
      { numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(200);
  });
});
