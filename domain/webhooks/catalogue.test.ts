import { describe, expect, it } from 'vitest';
import { CATALOGUE, canonicalEvent, emittedEventSchema, eventTypes, REGISTRABLE_EVENTS } from './catalogue.js';
import { passesFilter, withAutoPayload } from './filter.js';

describe('event catalogue', () => {
  it('holds the 39 events of Document 3 and the risk service\'s two, each with its kind', () => {
    expect(Object.keys(CATALOGUE)).toHaveLength(41);
    expect(REGISTRABLE_EVENTS.sort()).toEqual(
      [
        'workflow_run_started', 'workflow_run_completed', 'workflow_run_failed', 'workflow_run_cancelled',
        'pbot_approval_requested', 'pbot_approval_decided',
        'external_form_created', 'external_form_updated', 'external_form_deleted', 'external_form_submitted',
        'document.uploaded', 'document.version_created', 'document.deleted', 'document.expired',
        'risk.high', 'risk.low',
      ].sort(),
    );
  });

  it('resolves aliases to catalogue names', () => {
    expect(canonicalEvent('workflow.started')).toBe('workflow_run_started');
    expect(canonicalEvent('workflow.cancelled')).toBe('workflow_run_cancelled');
    expect(canonicalEvent('step.started')).toBe('step.started');
    expect(canonicalEvent('toString')).toBeUndefined();
  });

  it('checks payloads: required fields, ? fields absent or null, extra fields kept', () => {
    const ok = emittedEventSchema.safeParse({ event: 'form_submitted', payload: { form_pause_id: 'f', submission_id: 's', run_id: 'r', step_id: 'x', claimed_by: null, extra: 1 } });
    expect(ok.success && ok.data.payload.extra).toBe(1);
    const bad = emittedEventSchema.safeParse({ event: 'workflow.completed', payload: { run_id: 'r', workflow_id: 'w', result: 'no' } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['payload', 'result']);
  });

  it('accepts both shapes of pbot_approval_requested', () => {
    const fromStep = { run_id: 'r', step_id: 's', workflow_id: 'w', comment: 'c', request_payload: {}, status: 'pending' };
    const fromAgent = { source: 'standalone_agent', agent_run_id: 'a', run_id: 'r', step_id: 's', question: 'q', options: ['yes'], context_summary: 'c', urgency: 'high', status: 'pending' };
    for (const payload of [fromStep, fromAgent]) expect(emittedEventSchema.safeParse({ event: 'pbot_approval_requested', payload }).success).toBe(true);
  });

  it('documents each payload as a JSON schema', () => {
    const types = eventTypes();
    const started = types.find((t) => t.name === 'workflow_run_started')!;
    expect(started).toMatchObject({ kind: 'R', registrable: true, alias: 'workflow.started' });
    expect((started.schema as { required: string[] }).required).toEqual(['run_id', 'workflow_id', 'input_payload']);
  });
});

describe('filters', () => {
  const doc = { document_id: 'd', tags: ['a', 'b'], content_type: 'application/pdf' };
  it.each([
    [{ tags: ['b', 'z'] }, true],
    [{ tags: ['z'] }, false],
    [{ content_type: 'application/pdf' }, true],
    [{ content_type: 'text/plain' }, false],
    [{ tags: ['a'], content_type: 'text/plain' }, false],
    [{}, true],
  ])('document event with filter %j passes: %s', (filter, passes) => {
    expect(passesFilter(filter, 'document.uploaded', doc)).toBe(passes);
  });
  it('other events ignore the filter', () => expect(passesFilter({ tags: ['z'] }, 'workflow_run_started', {})).toBe(true));
  it("auto_payload is merged and the event's fields win", () => expect(withAutoPayload({ a: 1 }, { a: 2, b: 3 })).toEqual({ a: 1, b: 3 }));
});
