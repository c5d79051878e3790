/**
 * One message per topic with a schema in schemas/avro, in the JSON shape producers hand to the
 * codec: every optional field set, so a round trip through Avro must carry each of them.
 */
export const codecSamples: Record<string, Record<string, unknown>> = {
  events: {
    org_id: 'org-1',
    event_id: 'ev-1',
    entity_id: 'user-42',
    event_type: 'login',
    occurred_at: '2024-03-01T10:15:00.123+01:00',
    value: 12.5,
    attributes: { country: 'NG', channel: 'web' },
  },
  transactions: {
    org_id: 'org-1',
    transaction_id: 'tx-1',
    entity_id: 'user-42',
    amount: 1500.75,
    currency: 'NGN',
    transaction_date: '2024-03-01',
    transaction_time: '23:59:59',
    transaction_type: 'transfer',
    source_account_number: '0123456789',
    source_account_name: 'Ada Obi',
    source_bank_code: '058',
    source_account_type: 'savings',
    beneficiary_account_number: '9876543210',
    beneficiary_account_name: 'Chinedu Eze',
    beneficiary_bank_code: '011',
    beneficiary_account_type: 'current',
    beneficiary_is_cross_border: true,
    pep: false,
    device_fingerprint: 'fp-abc',
    // Registered custom fields of the organization: top-level keys in JSON.
    risk_tier: 'high',
    velocity_score: 0.75,
    is_vip: true,
    opened_on: '2023-12-31',
  },
  'workflow.events': {
    org_id: 'org-1',
    event: 'pbot_approval_requested',
    payload: { run_id: 'run-1', step_id: 's-2', workflow_id: 'wf-9', comment: null, request_payload: { amount: 10, tags: ['a', 'b'] }, status: 'pending' },
  },
  screenings: {
    audit_id: 'aud-1',
    org_id: 'org-1',
    name: 'Ivan Petrov',
    decision: 'REVIEW',
    score: 0.87,
    entity_id: 'ofac-12345',
    list_version: '2024-03-01T03:00:00Z',
    created_at: '2024-03-01T10:15:00Z',
    payload: { request: { name: 'Ivan Petrov', nationality: 'RU' }, matches: [{ entity_id: 'ofac-12345', score: 0.87 }] },
  },
};
